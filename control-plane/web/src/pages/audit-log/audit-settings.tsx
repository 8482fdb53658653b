// How long the organization keeps its audit log: 1 to 3650 days, 400 by default; older rows
// are deleted once a day.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useOrg } from '../../session/session';
import { TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems, LoadError, Loading } from '../../ui/page';
import type { AuditLogSettings } from './audit-types';

const PATH = '/audit-log/settings';

export function AuditSettingsCard() {
  const org = useOrg();
  const settings = useQuery({ queryKey: queryKeys.resource(org, PATH), queryFn: () => api.get<AuditLogSettings>(PATH) });
  return (
    <section className="card" aria-labelledby="audit-retention-title">
      <h2 id="audit-retention-title">Retention</h2>
      {settings.isPending ? (
        <Loading what="the retention" />
      ) : settings.isError ? (
        <LoadError error={settings.error} retry={() => void settings.refetch()} />
      ) : (
        <RetentionForm settings={settings.data} />
      )}
    </section>
  );
}

function RetentionForm({ settings }: { settings: AuditLogSettings }) {
  const org = useOrg();
  const client = useQueryClient();
  const [days, setDays] = useState(String(settings.retention_days));
  const save = useMutation({
    mutationFn: (body: AuditLogSettings) => api.put<AuditLogSettings>(PATH, body),
    onSuccess: (saved) => {
      client.setQueryData(queryKeys.resource(org, PATH), saved);
      // The change is itself a row of the log.
      void client.invalidateQueries({ queryKey: queryKeys.resource(org, '/audit-log') });
    },
  });
  const errors = formErrors(save.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ retention_days: Number(days) });
  };
  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['retention_days'])} />
      <TextField
        label="Keep the audit log for (days)"
        type="number"
        min={1}
        max={3650}
        value={days}
        onChange={(e) => setDays(e.target.value)}
        error={errors.field('retention_days')}
        hint="From 1 to 3650 days. Older entries are deleted once a day."
      />
      <div className="actions">
        {save.isSuccess && (
          <span className="muted" role="status">
            Saved.
          </span>
        )}
        <button type="submit" className="primary" disabled={save.isPending}>
          Save retention
        </button>
      </div>
    </form>
  );
}
