// The rows of the audit log, newest first: when, who, from where, what. Each row opens to show
// the fields it changed, before and after (secrets were masked as *** when it was written).
import { Fragment, useState } from 'react';
import { formatDateTime } from '../../ui/format';
import { ListTable } from '../../ui/list-table';
import type { AuditEntry } from './audit-types';

const COLUMNS = ['When', 'Who', 'Address', 'Action', 'Resource', 'Id', 'Changes'];

export function AuditTable({ entries }: { entries: AuditEntry[] }) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) => {
    const next = new Set(open);
    if (!next.delete(id)) next.add(id);
    setOpen(next);
  };
  return (
    <ListTable columns={COLUMNS}>
      {entries.map((e) => {
        const shown = open.has(e.id);
        return (
          <Fragment key={e.id}>
            <tr>
              <td>
                <time dateTime={e.at}>{formatDateTime(e.at)}</time>
              </td>
              <td>{who(e)}</td>
              <td>{e.address ?? '—'}</td>
              <td>
                <span className={`audit-action audit-${e.action === 'sign_in_failed' || e.action === 'delete' ? 'warn' : 'plain'}`}>{e.action}</span>
              </td>
              <td>{e.resource}</td>
              <td className="audit-id">{e.resource_id ?? '—'}</td>
              <td>
                {e.before || e.after ? (
                  <button type="button" aria-expanded={shown} aria-controls={`audit-${e.id}`} onClick={() => toggle(e.id)}>
                    {shown ? 'Hide changes' : 'Show changes'}
                  </button>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
            </tr>
            {shown && (
              <tr id={`audit-${e.id}`}>
                <td colSpan={COLUMNS.length}>
                  <Changes entry={e} />
                </td>
              </tr>
            )}
          </Fragment>
        );
      })}
    </ListTable>
  );
}

function who(e: AuditEntry): string {
  if (e.actor_api_key_id) return `API key ${e.actor_api_key_id.slice(0, 8)}`;
  return e.actor_email ?? e.actor_user_id ?? '—';
}

/** One line per field: its value before and after (absent: the field was not there). */
function Changes({ entry }: { entry: AuditEntry }) {
  const fields = [...new Set([...Object.keys(entry.before ?? {}), ...Object.keys(entry.after ?? {})])].sort();
  const value = (state: Record<string, unknown> | null, field: string) => (state && field in state ? JSON.stringify(state[field], null, 1) : '—');
  return (
    <table className="audit-changes" aria-label={`Changes of ${entry.resource} ${entry.resource_id ?? ''}`.trim()}>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {fields.map((f) => (
          <tr key={f}>
            <th scope="row">{f}</th>
            <td>
              <pre>{value(entry.before, f)}</pre>
            </td>
            <td>
              <pre>{value(entry.after, f)}</pre>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
