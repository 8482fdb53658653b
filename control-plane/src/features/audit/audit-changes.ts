// Records every successful change made through the protected routes of /api/v1: the operation
// the router matched says what changed (audit-targets.ts), the credential says who, ctx.ip from
// where, and the resource's snapshot (audit-snapshots.ts) read before and after says how.
//
// The row is written after the change has committed, not in its transaction: the features
// write through repositories of their own (the ORM, pooled SQL, their own transactions) that a
// middleware cannot join. A row that cannot be written turns the answer into a 500 and the
// entry into an error log line (record-or-fail.ts); only a crash between the change and the
// row loses it. A request whose feature recorded rows of its own (in its transaction, with
// what only it knows) gets no generic row besides.
import type { Context, Next } from 'koa';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import type { Actor } from '../auth/actor.js';
import { changedFields } from './audit-diff.js';
import { isSecretKey, MASK } from './audit-mask.js';
import type { SnapshotRegistry } from './audit-snapshots.js';
import { auditTargetOf, type AuditTarget } from './audit-targets.js';
import type { AuditEntry, RequestAuditTrail } from './audit-trail.js';
import { recordOrFail } from './record-or-fail.js';

const API_PREFIX = '/api/v1';
/** A bulk action's outcomes that changed the service. */
const BULK_CHANGES = new Set(['paused', 'resumed', 'updated', 'deleted']);

type Json = Record<string, unknown>;

export interface AuditChangesDeps {
  trail: RequestAuditTrail;
  operations: readonly ApiOperation[];
  /** Asked at the first request: the services it reads are made after this middleware. */
  snapshots: () => SnapshotRegistry;
}

export function auditChanges({ trail, operations, snapshots }: AuditChangesDeps) {
  const byRoute = new Map<string, { op: ApiOperation; target: AuditTarget }>();
  for (const op of operations) {
    const target = op.public ? null : auditTargetOf(op);
    if (target) byRoute.set(`${op.method.toUpperCase()} ${op.path}`, { op, target });
  }

  return async (ctx: Context, next: Next): Promise<void> => {
    const route = matchedRoute(ctx);
    const found = route?.startsWith(API_PREFIX) ? byRoute.get(`${ctx.method} ${route.slice(API_PREFIX.length).replace(/\/$/, '')}`) : undefined;
    const actor = ctx.state.actor as Actor | undefined;
    if (!found || !actor) return next();
    const { op, target } = found;
    const params = paramsOf(op.path, ctx.path.slice(API_PREFIX.length));
    const snapshot = snapshots()[target.resource];
    const read = (id: string | null) => (snapshot ? snapshot(actor, id, params).catch(() => null) : Promise.resolve(null));
    const id = (target.idParam ? params[target.idParam] : implicitId(target.resource, actor)) ?? null;
    const before = target.action === 'create' ? null : await read(id);

    const recordedByFeature = await trail.track(next);
    if (ctx.status < 200 || ctx.status >= 300 || recordedByFeature.size > 0) return;

    const body = plainObject(ctx.body);
    const who = { actor: actorOf(actor), address: ctx.ip || null };
    if (target.action === 'bulk') {
      await recordOrFail(trail, bulkEntries(body, plainObject(ctx.request.body), actor, who), ctx.state.log);
      return;
    }
    const resourceId = id ?? stringOr(body?.id) ?? stringOr(body?.user_id);
    let after = target.action === 'delete' ? null : snapshot ? await read(resourceId) : body;
    if (after && (target.action === 'create' || target.action === 'update')) after = { ...after, ...secretsSent(plainObject(ctx.request.body)) };
    // A repeated acknowledge, a PUT of what was there: nothing changed, nothing to record.
    if (before && after && isUnchanged(before, after)) return;
    const organizationId = stringOr(after?.organization_id) ?? stringOr(before?.organization_id) ?? actor.organizationId;
    const entry: AuditEntry = { organizationId, ...who, action: target.action, resource: target.resource, resourceId, before, after };
    await recordOrFail(trail, [entry], ctx.state.log);
  };
}

/**
 * The pattern of the route that will answer (`/api/v1/services/:id`): the first layer of this
 * method whose path matched (a route answers without calling the next). Seen from a
 * middleware, the router's `_matchedRoute` is still the middleware's own layer.
 */
function matchedRoute(ctx: Context): string | undefined {
  const layers = (ctx as { matched?: { path: string | RegExp; methods: string[] }[] }).matched ?? [];
  const route = layers.find((layer) => layer.methods.includes(ctx.method));
  return typeof route?.path === 'string' ? route.path : undefined;
}

const actorOf = (actor: Actor): AuditEntry['actor'] =>
  actor.apiKey ? { apiKeyId: actor.apiKey.id, email: null } : { userId: actor.userId, email: actor.email || null };

/** Resources that are the actor's own, named by no path parameter. */
function implicitId(resource: string, actor: Actor): string | undefined {
  if (resource === 'organization') return actor.organizationId;
  if (resource === 'user') return actor.userId;
  if (resource === 'session') return actor.sessionId;
  return undefined;
}

/** The values of `:name` segments of the operation's path in the request's path. */
function paramsOf(pattern: string, path: string): Record<string, string> {
  const names = pattern.split('/');
  const values = path.split('/');
  const params: Record<string, string> = {};
  names.forEach((name, i) => {
    if (name.startsWith(':') && values[i] !== undefined) params[name.slice(1)] = safeDecode(values[i]!);
  });
  return params;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Credentials sent with a change (a status page's password, a webhook's secret) appear in no
 * snapshot: the row says they were set, as ***, never what they were. A masked value sent back
 * unchanged (`****abcd`) sets nothing.
 */
function secretsSent(request: Json | null): Json {
  const sent: Json = {};
  for (const [key, value] of Object.entries(request ?? {})) {
    if (typeof value === 'string' && !value.startsWith('****') && isSecretKey(key) && !key.startsWith('current_')) sent[key] = MASK;
  }
  return sent;
}

/** One row per service a bulk action changed; `check` changes none. */
function bulkEntries(answer: Json | null, request: Json | null, actor: Actor, who: Pick<AuditEntry, 'actor' | 'address'>): AuditEntry[] {
  const results = Array.isArray(answer?.results) ? (answer.results as Json[]) : [];
  const action = String(answer?.action ?? 'bulk');
  const organizationId = stringOr(request?.organization_id) ?? actor.organizationId;
  const after = request?.tags !== undefined ? { tags: request.tags } : request?.locations !== undefined ? { locations: request.locations } : null;
  return results
    .filter((r) => BULK_CHANGES.has(String(r.outcome)))
    .map((r) => ({ organizationId, ...who, action, resource: 'service', resourceId: String(r.id), before: null, after: action === 'delete' ? null : after }));
}

function isUnchanged(before: Json, after: Json): boolean {
  const changed = changedFields(before, after);
  return Object.keys(changed.before).length === 0 && Object.keys(changed.after).length === 0;
}

function plainObject(value: unknown): Json | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype ? (value as Json) : null;
}

const stringOr = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
