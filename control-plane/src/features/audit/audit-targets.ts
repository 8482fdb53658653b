// What an operation of /api/v1 changes, read from its method and path: POST /services is a
// service create, PUT /services/:id a service update, POST /alerts/:id/acknowledge an alert
// acknowledge. Operations that change nothing (test runs, checks run now, previews, exports)
// are not audited; a few whose paths say it badly are named here.
import type { ApiOperation } from '../../http/openapi/api-operation.js';

export interface AuditTarget {
  resource: string;
  action: string;
  /** The path parameter naming the resource; absent: the created body's id, or none. */
  idParam?: string;
}

/** Operations that change no configuration and no access. */
const UNAUDITED = new Set([
  'post /services/test',
  'post /services/:id/check',
  'post /ssl-certificates/:id/check',
  'post /notification-channels/:id/test',
  'post /notification-channels/preview',
  // A token for another of one's organizations: a sign-in changes nothing there either.
  'post /organizations/:id/token',
  'post /backup',
  // Challenges to sign, and a connection tried: nothing is kept.
  'post /profile/mfa/passkeys/options',
  'post /profile/mfa/proof-options',
  'post /organization/sso/test',
]);

/** Operations whose path does not say what they change. */
const NAMED: Record<string, AuditTarget> = {
  'post /agents/:id/token': { resource: 'agent', action: 'rotate_token', idParam: 'id' },
  'delete /agents/:id/previous-token': { resource: 'agent', action: 'revoke_previous_token', idParam: 'id' },
  'post /status-pages/:id/incidents/:incident_id/updates': { resource: 'incident', action: 'add_update', idParam: 'incident_id' },
  'put /status-pages/:id/incidents/:incident_id/updates/:update_id': { resource: 'incident', action: 'edit_update', idParam: 'incident_id' },
  'delete /status-pages/:id/incidents/:incident_id/updates/:update_id': { resource: 'incident', action: 'delete_update', idParam: 'incident_id' },
  'post /services/:id/badge-token': { resource: 'badge_token', action: 'create', idParam: 'id' },
  'delete /services/:id/badge-token': { resource: 'badge_token', action: 'delete', idParam: 'id' },
  'put /profile': { resource: 'user', action: 'update' },
  'put /organization/sso': { resource: 'sso_settings', action: 'update' },
  'delete /organization/sso': { resource: 'sso_settings', action: 'delete' },
  'delete /invitations/:id': { resource: 'invitation', action: 'revoke', idParam: 'id' },
  'delete /sessions': { resource: 'session', action: 'sign_out_everywhere' },
  'delete /sessions/current': { resource: 'session', action: 'sign_out' },
  'post /secrets': { resource: 'org_secret', action: 'create' },
  'put /secrets/:id': { resource: 'org_secret', action: 'update', idParam: 'id' },
  'delete /secrets/:id': { resource: 'org_secret', action: 'delete', idParam: 'id' },
};

const ACTION_BY_METHOD: Record<string, string> = { post: 'create', put: 'update', patch: 'update', delete: 'delete' };

/** The audited target of a mutating operation; null for reads and for operations that change nothing. */
export function auditTargetOf(op: Pick<ApiOperation, 'method' | 'path'>): AuditTarget | null {
  const key = `${op.method} ${op.path}`;
  const byMethod = ACTION_BY_METHOD[op.method];
  if (!byMethod || UNAUDITED.has(key)) return null;
  if (NAMED[key]) return NAMED[key];
  const segments = op.path.split('/').filter(Boolean);
  const last = segments.at(-1)!;
  const before = segments.at(-2);
  // PUT /teams/:id
  if (last.startsWith(':')) return { resource: singular(before ?? last), action: byMethod, idParam: last.slice(1) };
  if (before?.startsWith(':')) {
    const owner = singular(segments.at(-3)!);
    const idParam = before.slice(1);
    // POST /status-pages/:id/incidents creates an incident; POST /alerts/:id/acknowledge acts on the alert.
    if (isCollection(last) && op.method === 'post') return { resource: singular(last), action: byMethod };
    return op.method === 'post' ? { resource: owner, action: snake(last), idParam } : { resource: `${owner}_${singular(last)}`, action: byMethod, idParam };
  }
  // POST /services, PUT /organization
  if (!before || isCollection(last)) return { resource: singular(last), action: byMethod };
  // PUT /reports/settings is the report_settings; POST /mfa/totp an mfa totp.
  return op.method === 'post' ? { resource: singular(before), action: snake(last) } : { resource: `${singular(before)}_${snake(last)}`, action: byMethod };
}

const snake = (segment: string) => segment.replace(/-/g, '_');

/** A plural noun: `services`, `api-keys`; not `address` nor `settings` (one object of several fields). */
const isCollection = (segment: string) => /s$/.test(segment) && !/ss$/.test(segment) && !segment.endsWith('settings');

/** `escalation-policies` → `escalation_policy`, `api-keys` → `api_key`, `audit-log` → `audit_log`. */
function singular(segment: string): string {
  const word = snake(segment);
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  return isCollection(word) ? word.slice(0, -1) : word;
}
