// Heartbeats: a job, cron or backup calls its ping URL; silence past interval + grace turns it
// RED. Each is a monitored service, so the feed's status changes refresh this list.
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { queryKeys } from '../../api/query-keys';
import { useDeleteResource, useResourceList, useSaveResource } from '../../api/resources';
import type { Status } from '../../api/types';
import { useLiveMessages } from '../../live/live';
import { useOrg, useSession } from '../../session/session';
import { CopyButton } from '../../ui/copy-button';
import { Dialog } from '../../ui/dialog';
import { TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { formatAgo, formatDateTime } from '../../ui/format';
import { ListTable } from '../../ui/list-table';
import { CreateButton, FormProblems, Page } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import { EditDeleteActions } from '../../ui/row-actions';
import { StatusBadge } from '../../ui/status';
import './heartbeats.css';
import { FormActions } from '../../ui/form-actions';

interface Heartbeat {
  id: string;
  service_id: string;
  name: string;
  interval_seconds: number;
  grace_seconds: number;
  ping_url: string;
  status: Status | null;
  last_ping_at: string | null;
}

const PATH = '/heartbeats';

function duration(seconds: number): string {
  if (seconds % 86_400 === 0 && seconds > 0) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0 && seconds > 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0 && seconds > 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

export default function HeartbeatsPage() {
  const { canWrite } = useSession();
  const org = useOrg();
  const client = useQueryClient();
  const heartbeats = useResourceList<Heartbeat>(PATH);
  const remove = useDeleteResource(PATH);
  const [editing, setEditing] = useState<Heartbeat | 'new' | null>(null);

  const serviceIds = new Set(heartbeats.data?.map((h) => h.service_id));
  useLiveMessages((messages) => {
    if (messages.some((m) => m.type === 'check_result' || m.type === 'service_status' ? serviceIds.has(m.data.service_id) : false)) {
      void client.invalidateQueries({ queryKey: queryKeys.resource(org, PATH) });
    }
  });

  return (
    <Page
      title="Heartbeats"
      actions={canWrite && <CreateButton onClick={() => setEditing('new')}>Create heartbeat</CreateButton>}
    >
      <QueryState query={heartbeats} what="heartbeats" empty={<>No heartbeat yet. {canWrite ? 'Create one for a cron job or backup: the job calls its ping URL, and you are alerted when the pings stop.' : 'A member of the organization can create one.'}</>}>
        {(data) => (
          <ListTable columns={['Name', 'Status', 'Interval', 'Grace', 'Last ping', 'Ping URL']} actions={canWrite}>
            {data.map((h) => (
              <tr key={h.id}>
                <th scope="row">{h.name}</th>
                <td>
                  <StatusBadge status={h.status} />
                </td>
                <td>{duration(h.interval_seconds)}</td>
                <td>{duration(h.grace_seconds)}</td>
                <td>{h.last_ping_at ? <time dateTime={h.last_ping_at} title={formatDateTime(h.last_ping_at)}>{formatAgo(h.last_ping_at)}</time> : 'Never'}</td>
                <td>
                  <PingUrl heartbeat={h} />
                </td>
                {canWrite && (
                  <td>
                    <EditDeleteActions name={h.name} what={`heartbeat "${h.name}"`} onEdit={() => setEditing(h)} onDelete={() => remove.mutateAsync(h.id)} />
                  </td>
                )}
              </tr>
            ))}
          </ListTable>
        )}
      </QueryState>
      <Dialog title={editing === 'new' ? 'Create heartbeat' : `Edit ${editing?.name ?? ''}`} open={editing !== null} onClose={() => setEditing(null)}>
        {editing !== null && <HeartbeatForm heartbeat={editing === 'new' ? undefined : editing} onDone={() => setEditing(null)} />}
      </Dialog>
    </Page>
  );
}

function PingUrl({ heartbeat }: { heartbeat: Heartbeat }) {
  const url = `${window.location.origin}${heartbeat.ping_url}`;
  return (
    <div className="ping-url">
      <code>{url}</code>
      <CopyButton text={url} label="Copy ping URL" />
      <p className="hint">
        At the end of the job: <code>curl -fsS -m 10 --retry 3 {url}</code> (add <code>/fail</code> to report a failure).
      </p>
    </div>
  );
}

function HeartbeatForm({ heartbeat, onDone }: { heartbeat?: Heartbeat; onDone(): void }) {
  const [name, setName] = useState(heartbeat?.name ?? '');
  const [intervalSeconds, setIntervalSeconds] = useState(String(heartbeat?.interval_seconds ?? 3600));
  const [graceSeconds, setGraceSeconds] = useState(String(heartbeat?.grace_seconds ?? 60));
  const save = useSaveResource<Heartbeat>(PATH);
  const errors = formErrors(save.error);
  // An empty box is sent as a missing field, so the API names it.
  const seconds = (text: string) => (text.trim() === '' ? undefined : Number(text));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ id: heartbeat?.id, body: { name, interval_seconds: seconds(intervalSeconds), grace_seconds: seconds(graceSeconds) } }, { onSuccess: onDone });
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['name', 'interval_seconds', 'grace_seconds'])} />
      <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={errors.field('name')} required autoFocus />
      <div className="form-grid">
        <TextField
          label="Interval (seconds)"
          type="number"
          min={1}
          inputMode="numeric"
          value={intervalSeconds}
          onChange={(e) => setIntervalSeconds(e.target.value)}
          error={errors.field('interval_seconds')}
          hint="How often the job runs: 3600 is hourly, 86400 daily."
          required
        />
        <TextField
          label="Grace (seconds)"
          type="number"
          min={0}
          inputMode="numeric"
          value={graceSeconds}
          onChange={(e) => setGraceSeconds(e.target.value)}
          error={errors.field('grace_seconds')}
          hint="How late a ping may be before the heartbeat turns RED."
        />
      </div>
      <FormActions onCancel={onDone} busy={save.isPending} submitLabel={heartbeat ? 'Save' : 'Create heartbeat'} />
    </form>
  );
}
