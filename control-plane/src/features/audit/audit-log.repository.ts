// Reading the audit log (newest first, by a cursor on the index's order), the retention of each
// organization, and the deletion of rows past it. Nothing here updates a row of audit_log.
import type { EntityManager } from '@mikro-orm/postgresql';
import { jsonColumn } from '../../db/json-column.js';

export interface AuditRow {
  id: string;
  organizationId: string | null;
  at: Date;
  /** `at` to the microsecond, for the cursor (a Date keeps milliseconds). */
  atExact: string;
  actorUserId: string | null;
  actorApiKeyId: string | null;
  actorEmail: string | null;
  address: string | null;
  action: string;
  resource: string;
  resourceId: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** Where a page ended: the next page holds rows strictly older in (at, id) order. */
export interface AuditCursor {
  at: string;
  id: string;
}

export interface AuditFilter {
  organizationId: string;
  /** A user or API key id, or an e-mail address. */
  actor?: { id: string } | { email: string };
  resource?: string;
  resourceId?: string;
  action?: string;
  /** From this instant, inclusive. */
  from?: Date;
  /** Until this instant, exclusive. */
  to?: Date;
  before?: AuditCursor;
  limit: number;
}

export interface AuditLogRepository {
  list(filter: AuditFilter): Promise<AuditRow[]>;
  retentionDays(organizationId: string): Promise<number>;
  setRetentionDays(organizationId: string, days: number): Promise<void>;
  /**
   * The user of an e-mail and the organization a sign-in lands in (the oldest membership), in
   * one statement whether or not the user exists: a failed sign-in's row takes no longer to
   * write for a known e-mail than for an unknown one.
   */
  accountOf(email: string): Promise<{ userId: string; organizationId: string | null } | null>;
  /** Deletes up to `batch` rows older than their organization's retention at `now`; answers how many. */
  deleteExpired(now: Date, defaultDays: number, batch: number): Promise<number>;
}

export function createAuditLogRepository(em: () => EntityManager): AuditLogRepository {
  const run = (sql: string, params: unknown[]) => em().execute<Record<string, unknown>[]>(sql, params);
  return {
    async list(f) {
      const where = ['organization_id = ?'];
      const params: unknown[] = [f.organizationId];
      const add = (clause: string, ...values: unknown[]) => {
        where.push(clause);
        params.push(...values);
      };
      if (f.actor && 'id' in f.actor) add('(actor_user_id = ?::uuid or actor_api_key_id = ?::uuid)', f.actor.id, f.actor.id);
      if (f.actor && 'email' in f.actor) add('lower(actor_email) = lower(?)', f.actor.email);
      if (f.resource) add('resource = ?', f.resource);
      if (f.resourceId) add('resource_id = ?', f.resourceId);
      if (f.action) add('action = ?', f.action);
      if (f.from) add('at >= ?', f.from);
      if (f.to) add('at < ?', f.to);
      if (f.before) add('(at, id) < (?::timestamptz, ?::bigint)', f.before.at, f.before.id);
      const rows = await run(
        `select id::text as id, organization_id, at, to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at_exact,
                actor_user_id, actor_api_key_id, actor_email, address, action, resource, resource_id, before, after
           from audit_log where ${where.join(' and ')} order by at desc, id desc limit ?`,
        [...params, f.limit],
      );
      return rows.map(toAuditRow);
    },

    async accountOf(email) {
      const [row] = await run(
        `select u.id, (select m.organization_id from memberships m where m.user_id = u.id order by m.created_at limit 1) as organization_id
           from (select 1) one left join users u on u.email = ?`,
        [email],
      );
      return row?.id ? { userId: String(row.id), organizationId: (row.organization_id as string | null) ?? null } : null;
    },

    async retentionDays(organizationId) {
      const [row] = await run('select audit_retention_days from organizations where id = ?', [organizationId]);
      return Number(row?.audit_retention_days);
    },

    async setRetentionDays(organizationId, days) {
      await run('update organizations set audit_retention_days = ? where id = ?', [days, organizationId]);
    },

    // Organizations gone (and events of none) keep the default retention. Batched by id so
    // that one statement stays short however much fell due.
    async deleteExpired(now, defaultDays, batch) {
      const rows = await run(
        `with expired as (
           select a.id from audit_log a left join organizations o on o.id = a.organization_id
            where a.at < ?::timestamptz - make_interval(days => coalesce(o.audit_retention_days, ?))
            limit ?)
         delete from audit_log where id in (select id from expired) returning 1`,
        [now, defaultDays, batch],
      );
      return rows.length;
    },
  };
}

function toAuditRow(r: Record<string, unknown>): AuditRow {
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
  return {
    id: String(r.id),
    organizationId: text(r.organization_id),
    at: new Date(r.at as string | Date),
    atExact: String(r.at_exact),
    actorUserId: text(r.actor_user_id),
    actorApiKeyId: text(r.actor_api_key_id),
    actorEmail: text(r.actor_email),
    address: text(r.address),
    action: String(r.action),
    resource: String(r.resource),
    resourceId: text(r.resource_id),
    before: r.before === null ? null : jsonColumn<Record<string, unknown>>(r.before),
    after: r.after === null ? null : jsonColumn<Record<string, unknown>>(r.after),
  };
}
