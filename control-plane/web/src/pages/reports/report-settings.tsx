// The monthly report e-mail: last month's report sent at the start of each (UTC) month to chosen
// addresses. Anyone may read the setting; admins and owners change it.
import type { z } from 'zod';
import type { ReportSettingsJson } from '../../../../src/features/reports/reports.schema';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useOrg, useSession } from '../../session/session';
import { CheckboxField, TextAreaField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems, LoadError, Loading } from '../../ui/page';

type ReportSettings = z.infer<typeof ReportSettingsJson>;

const PATH = '/reports/settings';

export function ReportSettingsCard() {
  const org = useOrg();
  const settings = useQuery({ queryKey: queryKeys.resource(org, PATH), queryFn: () => api.get<ReportSettings>(PATH) });
  return (
    <section className="card" aria-labelledby="monthly-report-title">
      <h2 id="monthly-report-title">Monthly report e-mail</h2>
      {settings.isPending ? (
        <Loading what="the report settings" />
      ) : settings.isError ? (
        <LoadError error={settings.error} retry={() => void settings.refetch()} />
      ) : (
        <SettingsForm settings={settings.data} />
      )}
    </section>
  );
}

function SettingsForm({ settings }: { settings: ReportSettings }) {
  const { canManage } = useSession();
  const org = useOrg();
  const client = useQueryClient();
  const [enabled, setEnabled] = useState(settings.monthly_email.enabled);
  const [recipients, setRecipients] = useState(settings.monthly_email.recipients.join('\n'));
  const save = useMutation({
    mutationFn: (body: ReportSettings) => api.put<ReportSettings>(PATH, body),
    onSuccess: (saved) => client.setQueryData(queryKeys.resource(org, PATH), saved),
  });
  const errors = formErrors(save.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const list = recipients.split(/[\n,;]/).map((r) => r.trim()).filter(Boolean);
    save.mutate({ monthly_email: { enabled, recipients: list } });
  };
  return (
    <form onSubmit={submit} noValidate>
      <p className="muted">At the start of each month, last month&apos;s uptime report of all services goes to these addresses.</p>
      <FormProblems messages={errors.summary(['monthly_email'])} />
      <fieldset disabled={!canManage} className="bare">
        <CheckboxField label="Send the monthly report" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} error={errors.field('monthly_email.enabled')} />
        <TextAreaField
          label="Recipients"
          value={recipients}
          onChange={(e) => setRecipients(e.target.value)}
          error={errors.field('monthly_email.recipients')}
          hint="E-mail addresses, one a line."
          rows={3}
        />
      </fieldset>
      {canManage ? (
        <div className="actions">
          {save.isSuccess && (
            <span className="muted" role="status">
              Saved.
            </span>
          )}
          <button type="submit" className="primary" disabled={save.isPending}>
            Save
          </button>
        </div>
      ) : (
        <p className="hint">Admins and owners of the organization change this.</p>
      )}
    </form>
  );
}
