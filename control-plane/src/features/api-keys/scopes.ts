// What an API key's scopes allow (issue 43). A scope is `<resource>:read` or `<resource>:write`
// (write includes read), named after the first segment of the route's path, with three of
// their own: `checks:run` (running a check now), `metrics:read` (results, uptime and
// metrics), `incidents:*` (a status page's incidents, so a bot may post them without editing
// pages). Scopes narrow a key's role; they never widen it. A key without scopes has its role.
export const SCOPE_RESOURCES = [
  'services', 'heartbeats', 'ssl-certificates', 'alerts', 'alert-rules', 'notification-channels', 'escalation-policies',
  'maintenance-windows', 'silences', 'secrets', 'status-pages', 'incidents', 'agents', 'members', 'teams', 'invitations',
  'organization', 'api-keys', 'reports', 'audit-log', 'profile',
] as const;
const ONLY_READ = ['metrics'] as const;

export const API_KEY_SCOPES: readonly string[] = [
  ...SCOPE_RESOURCES.flatMap((r) => [`${r}:read`, `${r}:write`]),
  ...ONLY_READ.map((r) => `${r}:read`),
  'checks:run',
].sort();

// Routes whose scope is not their first path segment's.
const RUN = new Set(['POST /services/:id/check', 'POST /services/test', 'POST /ssl-certificates/:id/check']);
const METRICS = new Set(['GET /metrics', 'GET /services/:id/checks', 'GET /services/:id/uptime', 'GET /services/:id/metrics', 'GET /reports/uptime']);
const SAME_AS: Record<string, string> = { organizations: 'organization', sessions: 'profile' };

/** The scope a request of `method` on the route `path` (relative to /api/v1, `/services/:id`) needs. */
export function scopeOf(method: string, path: string): string {
  const verb = method === 'HEAD' ? 'GET' : method;
  const route = `${verb} ${path}`;
  if (RUN.has(route)) return 'checks:run';
  if (METRICS.has(route)) return 'metrics:read';
  const [, first = '', , third] = path.split('/');
  const resource = first === 'status-pages' && third === 'incidents' ? 'incidents' : (SAME_AS[first] ?? first);
  return `${resource}:${verb === 'GET' ? 'read' : 'write'}`;
}

/** Whether scopes `granted` allow `needed`: the scope itself, or the write scope of the same resource for a read. */
export function allows(granted: readonly string[], needed: string): boolean {
  if (granted.includes(needed)) return true;
  const [resource, action] = needed.split(':');
  return action === 'read' && granted.includes(`${resource}:write`);
}
