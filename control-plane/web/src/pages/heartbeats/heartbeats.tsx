// Heartbeats: a job, cron or backup calls its ping URL; silence past the expected time + grace
// turns it RED. A heartbeat is expected every N seconds or at each run of a cron schedule.
// Each is a monitored service, so the feed's status changes refresh this list.
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { queryKeys } from '../../api/query-keys';
import { useDeleteResource, useResourceList, useSaveResource } from '../../api/resources';
import type { Status } from '../../api/types';
import { useLiveMessages } from '../../live/live';
import { useOrg, useSession } from '../../session/session';
import { CopyButton } from '../../ui/copy-button';
import { Dialog } from '../../ui/dialog';
import { CheckboxField, TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { formatAgo, formatDateTime } from '../../ui/format';
import { ListTable } from '../../ui/list-table';
import { CreateButton, FormProblems, Page } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import { EditDeleteActions } from '../../ui/row-actions';
import { StatusBadge } from '../../ui/status';
import './heartbeats.css';
import { FormActions } from '../../ui/form-actions';
import { browserTimeZone } from '../../ui/local-time';
import { TimeZoneField } from '../../ui/time-zone-field';

interface Heartbeat {
  id: string;
  service_id: string;
  name: string;
  interval_seconds: number | null;
  schedule: string | null;
  timezone: string | null;
  grace_seconds: number;
  max_runtime_seconds: number | null;
  ping_url: string;
  status: Status | null;
  last_ping_at: string | null;
  next_expected_at: string | null;
}

const PATH = '/heartbeats';

/** "Every 1 h", or "30 2 * * * (Europe/Berlin)", with the max runtime when there is one. */
function expected(h: Heartbeat): string {
  const when = h.schedule !== null ? `${h.schedule} (${h.timezone})` : `Every ${duration(h.interval_seconds ?? 0)}`;
  return h.max_runtime_seconds === null ? when : `${when}, runs at most ${duration(h.max_runtime_seconds)}`;
}

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
          <ListTable columns={['Name', 'Status', 'Expected', 'Grace', 'Last ping', 'Next ping expected', 'Ping URL']} actions={canWrite}>
            {data.map((h) => (
              <tr key={h.id}>
                <th scope="row">{h.name}</th>
                <td>
                  <StatusBadge status={h.status} />
                </td>
                <td>{expected(h)}</td>
                <td>{duration(h.grace_seconds)}</td>
                <td>{h.last_ping_at ? <time dateTime={h.last_ping_at} title={formatDateTime(h.last_ping_at)}>{formatAgo(h.last_ping_at)}</time> : 'Never'}</td>
                <td>
                  {h.next_expected_at ? (
                    <time dateTime={h.next_expected_at}>
                      {formatAgo(h.next_expected_at)} <span className="hint">({formatDateTime(h.next_expected_at)})</span>
                    </time>
                  ) : (
                    'After the first ping'
                  )}
                </td>
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
        At the end of the job: <code>curl -fsS -m 10 --retry 3 {url}</code> (add <code>/fail</code> to report a failure
        {heartbeat.max_runtime_seconds !== null && <>; call <code>{url}/start</code> when it starts</>}).
      </p>
    </div>
  );
}

const BROWSER_ZONE = browserTimeZone();

function HeartbeatForm({ heartbeat, onDone }: { heartbeat?: Heartbeat; onDone(): void }) {
  const [name, setName] = useState(heartbeat?.name ?? '');
  const [mode, setMode] = useState<'interval' | 'schedule'>(heartbeat?.schedule ? 'schedule' : 'interval');
  const [intervalSeconds, setIntervalSeconds] = useState(String(heartbeat?.interval_seconds ?? 3600));
  const [schedule, setSchedule] = useState(heartbeat?.schedule ?? '0 3 * * *');
  const [timezone, setTimezone] = useState(heartbeat?.timezone ?? BROWSER_ZONE);
  const [graceSeconds, setGraceSeconds] = useState(String(heartbeat?.grace_seconds ?? 60));
  const [maxRuntime, setMaxRuntime] = useState(heartbeat?.max_runtime_seconds == null ? '' : String(heartbeat.max_runtime_seconds));
  const save = useSaveResource<Heartbeat>(PATH);
  const errors = formErrors(save.error);
  // An empty box is sent as a missing field, so the API names it.
  const seconds = (text: string) => (text.trim() === '' ? undefined : Number(text));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // Sending one of interval_seconds or schedule switches the heartbeat to it.
    const timing = mode === 'interval' ? { interval_seconds: seconds(intervalSeconds) ?? null } : { schedule, timezone };
    const max_runtime_seconds = maxRuntime.trim() === '' ? null : Number(maxRuntime);
    save.mutate({ id: heartbeat?.id, body: { name, ...timing, grace_seconds: seconds(graceSeconds), max_runtime_seconds } }, { onSuccess: onDone });
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['name', 'interval_seconds', 'schedule', 'timezone', 'grace_seconds', 'max_runtime_seconds'])} />
      <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={errors.field('name')} required autoFocus />
      <fieldset>
        <legend>When the job pings</legend>
        <div className="mode-choices">
          <CheckboxField type="radio" name="mode" label="Every N seconds" checked={mode === 'interval'} onChange={() => setMode('interval')} />
          <CheckboxField type="radio" name="mode" label="Cron schedule" checked={mode === 'schedule'} onChange={() => setMode('schedule')} />
        </div>
        {mode === 'interval' ? (
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
        ) : (
          <div className="form-grid">
            <TextField
              label="Cron expression"
              value={schedule}
              onChange={(e) => setSchedule(e.target.value)}
              error={errors.field('schedule') ?? errors.field('interval_seconds')}
              hint={
                <>
                  As in the crontab: minute hour day month weekday, e.g. <code>30 2 * * *</code>; or <code>@daily</code>, <code>@hourly</code>.
                </>
              }
              required
            />
            <TimeZoneField value={timezone} onChange={setTimezone} error={errors.field('timezone')} />
          </div>
        )}
      </fieldset>
      <div className="form-grid">
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
        <TextField
          label="Max runtime (seconds)"
          type="number"
          min={1}
          inputMode="numeric"
          value={maxRuntime}
          onChange={(e) => setMaxRuntime(e.target.value)}
          error={errors.field('max_runtime_seconds')}
          hint="After a /start ping, RED if the job has not pinged within this time. Empty: no limit."
        />
      </div>
      <FormActions onCancel={onDone} busy={save.isPending} submitLabel={heartbeat ? 'Save' : 'Create heartbeat'} />
    </form>
  );
}
