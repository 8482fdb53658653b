// Watched TLS certificates: status in words, days remaining, validity, issuer and the location
// that checks each. Members and above add, edit, check now and delete watches.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useDeleteResource, useResourceList, useSaveResource } from '../../api/resources';
import type { Status } from '../../api/types';
import { useOrg, useSession } from '../../session/session';
import { Dialog } from '../../ui/dialog';
import { TextAreaField, TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { formatAgo, formatDateTime } from '../../ui/format';
import { ListTable } from '../../ui/list-table';
import { CreateButton, FormProblems, Page } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import { EditDeleteActions } from '../../ui/row-actions';
import { StatusBadge } from '../../ui/status';
import './certificates.css';
import { FormActions } from '../../ui/form-actions';

interface Certificate {
  id: string;
  name: string;
  hostname: string;
  port: number;
  warn_days: number;
  location: string;
  ca_certificate: string | null;
  status: Status | null;
  issuer: string | null;
  valid_to: string | null;
  days_remaining: number | null;
  last_checked_at: string | null;
  message: string | null;
}

type Editing = { certificate?: Certificate } | null;
const PATH = '/ssl-certificates';

export default function CertificatesPage() {
  const { canWrite } = useSession();
  const certificates = useResourceList<Certificate>(PATH);
  const [editing, setEditing] = useState<Editing>(null);

  return (
    <Page
      title="SSL certificates"
      actions={canWrite && <CreateButton onClick={() => setEditing({})}>Create certificate</CreateButton>}
    >
      <p className="muted">Each certificate is checked once a day from its location: YELLOW when fewer than its warning days remain, RED when expired or not trusted.</p>
      <QueryState query={certificates} what="certificates" empty="No certificates are watched yet.">
        {(data) => (
          <ListTable columns={['Certificate', 'Status', 'Days remaining', 'Valid to', 'Issuer', 'Location', 'Checked']} actions={canWrite}>
            {data.map((certificate) => (
              <CertificateRow key={certificate.id} certificate={certificate} canWrite={canWrite} onEdit={() => setEditing({ certificate })} />
            ))}
          </ListTable>
        )}
      </QueryState>
      <Dialog title={editing?.certificate ? `Edit certificate ${editing.certificate.name}` : 'Create certificate'} open={editing !== null} onClose={() => setEditing(null)} wide>
        {editing && <CertificateForm key={editing.certificate?.id ?? 'new'} certificate={editing.certificate} onDone={() => setEditing(null)} />}
      </Dialog>
    </Page>
  );
}

function CertificateRow({ certificate, canWrite, onEdit }: { certificate: Certificate; canWrite: boolean; onEdit(): void }) {
  const org = useOrg();
  const client = useQueryClient();
  const remove = useDeleteResource(PATH);
  const checkNow = useMutation({
    mutationFn: () => api.post(`${PATH}/${certificate.id}/check`),
    // The result arrives within seconds; read the watch again shortly after.
    onSuccess: () => setTimeout(() => void client.invalidateQueries({ queryKey: queryKeys.resource(org, PATH) }), 3000),
  });
  const address = `${certificate.hostname}:${certificate.port}`;
  return (
    <tr>
      <td>
        {certificate.name}
        {certificate.name !== address && <div className="muted mono">{address}</div>}
      </td>
      <td>
        <StatusBadge status={certificate.status} />
        {certificate.message && <div className="muted">{certificate.message}</div>}
      </td>
      <td>{certificate.days_remaining ?? '—'}</td>
      <td>{formatDateTime(certificate.valid_to)}</td>
      <td>{certificate.issuer ?? '—'}</td>
      <td>
        <Link to={`/locations/${encodeURIComponent(certificate.location)}`}>{certificate.location}</Link>
      </td>
      <td title={formatDateTime(certificate.last_checked_at)}>{formatAgo(certificate.last_checked_at)}</td>
      {canWrite && (
        <td>
          <EditDeleteActions name={`certificate ${certificate.name}`} what={`certificate "${certificate.name}"`} onEdit={onEdit} onDelete={() => remove.mutateAsync(certificate.id)}>
            <button type="button" disabled={checkNow.isPending} onClick={() => checkNow.mutate()} aria-label={`Check now ${certificate.name}`}>
              Check now
            </button>
          </EditDeleteActions>
          {checkNow.isSuccess && (
            <p className="muted" role="status">
              Check enqueued
            </p>
          )}
          {checkNow.error && (
            <p className="field-error" role="alert">
              {checkNow.error.message}
            </p>
          )}
        </td>
      )}
    </tr>
  );
}

const FIELDS = ['hostname', 'port', 'warn_days', 'location', 'name', 'ca_certificate'];

function CertificateForm({ certificate, onDone }: { certificate?: Certificate; onDone(): void }) {
  const save = useSaveResource<Certificate>(PATH);
  const [hostname, setHostname] = useState(certificate?.hostname ?? '');
  const [port, setPort] = useState(String(certificate?.port ?? 443));
  const [warnDays, setWarnDays] = useState(String(certificate?.warn_days ?? 14));
  const [location, setLocation] = useState(certificate?.location ?? 'local');
  const [name, setName] = useState(certificate?.name ?? '');
  const [caCertificate, setCaCertificate] = useState(certificate?.ca_certificate ?? '');
  const errors = formErrors(save.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = {
      hostname,
      // Numbers as typed: the API names a bad value at its field.
      port: port.trim() === '' ? undefined : Number(port),
      warn_days: warnDays.trim() === '' ? undefined : Number(warnDays),
      location,
      // Without a name the API names the watch after hostname:port.
      name: name.trim() || undefined,
      ca_certificate: caCertificate.trim() || null,
    };
    save.mutate({ id: certificate?.id, body }, { onSuccess: onDone });
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(FIELDS)} />
      <div className="form-grid">
        <TextField label="Hostname" required value={hostname} onChange={(e) => setHostname(e.target.value)} error={errors.field('hostname')} hint="A host name or IP address, without scheme or port." />
        <TextField label="Port" type="number" min={1} max={65535} value={port} onChange={(e) => setPort(e.target.value)} error={errors.field('port')} />
        <TextField label="Warn days" type="number" min={1} max={365} value={warnDays} onChange={(e) => setWarnDays(e.target.value)} error={errors.field('warn_days')} hint="YELLOW when fewer days remain." />
        <TextField label="Location" value={location} onChange={(e) => setLocation(e.target.value)} error={errors.field('location')} hint="The agent location that checks it; local is the control plane." />
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={errors.field('name')} hint="Optional; hostname:port when empty." />
      </div>
      <div className="certificate-pem">
        <TextAreaField
          label="CA certificate (PEM)"
          rows={6}
          value={caCertificate}
          onChange={(e) => setCaCertificate(e.target.value)}
          error={errors.field('ca_certificate')}
          hint="Optional: for internal hosts, the CA to trust instead of the system store (-----BEGIN CERTIFICATE-----)."
        />
      </div>
      <FormActions onCancel={onDone} busy={save.isPending} submitLabel={certificate ? 'Save' : 'Create'} />
    </form>
  );
}
