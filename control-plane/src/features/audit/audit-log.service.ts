// Reading the audit log and setting how long it is kept: admins and owners only (an API key
// needs the admin role). No use case here changes or deletes a row; retention does, daily.
import type { Clock } from '../../clock.js';
import { csv } from '../../csv.js';
import { AppError } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import { ROLE_RANK, type OrganizationAccess } from '../organizations/organization-access.js';
import type { AuditCursor, AuditLogRepository, AuditRow } from './audit-log.repository.js';
import { DEFAULT_LIMIT, MAX_CSV_ROWS, type AuditLogQuery, type AuditLogSettingsInput } from './audit-log.schema.js';

export interface AuditPage {
  rows: AuditRow[];
  /** Where the next, older page starts; null when this one is the last. */
  next: AuditCursor | null;
}

const CSV_HEADER = ['at', 'actor_email', 'actor_user_id', 'actor_api_key_id', 'address', 'action', 'resource', 'resource_id', 'before', 'after', 'id'] as const;

export function createAuditLogService({ log, access, clock }: { log: AuditLogRepository; access: OrganizationAccess; clock: Clock }) {
  /** The actor's organization, when it is an admin or owner there. */
  const administered = async (actor: Actor, what: string): Promise<string> => {
    const role = await access.roleIn(actor, actor.organizationId);
    if (ROLE_RANK[role] < ROLE_RANK.admin) throw new AppError('FORBIDDEN', `the ${role} role cannot ${what}: admins and owners only`);
    return actor.organizationId;
  };

  const page = async (organizationId: string, q: AuditLogQuery, limit: number): Promise<AuditPage> => {
    // One row more than asked says whether another page follows.
    const rows = await log.list({ organizationId, actor: q.actor, resource: q.resource, resourceId: q.resource_id, action: q.action, from: q.from ? new Date(q.from) : undefined, to: q.to ? new Date(q.to) : undefined, before: q.before, limit: limit + 1 });
    const more = rows.length > limit;
    const shown = more ? rows.slice(0, limit) : rows;
    const last = shown.at(-1);
    return { rows: shown, next: more && last ? { at: last.atExact, id: last.id } : null };
  };

  return {
    async list(actor: Actor, query: AuditLogQuery): Promise<AuditPage> {
      return page(await administered(actor, 'read the audit log'), query, query.limit ?? DEFAULT_LIMIT);
    },

    /** The newest matching rows (MAX_CSV_ROWS at most) as a spreadsheet-safe CSV file. */
    async exportCsv(actor: Actor, query: AuditLogQuery): Promise<{ filename: string; csv: string; next: AuditCursor | null }> {
      const { rows, next } = await page(await administered(actor, 'export the audit log'), query, query.limit ?? MAX_CSV_ROWS);
      const json = (v: Record<string, unknown> | null) => (v === null ? null : JSON.stringify(v));
      const body = csv(CSV_HEADER, rows.map((r) => [r.at.toISOString(), r.actorEmail, r.actorUserId, r.actorApiKeyId, r.address, r.action, r.resource, r.resourceId, json(r.before), json(r.after), r.id]));
      return { filename: `audit-log-${clock.now().toISOString().slice(0, 10)}.csv`, csv: body, next };
    },

    async settings(actor: Actor): Promise<{ retentionDays: number }> {
      return { retentionDays: await log.retentionDays(await administered(actor, 'read the audit log settings')) };
    },

    async updateSettings(actor: Actor, input: AuditLogSettingsInput): Promise<{ retentionDays: number }> {
      const organizationId = await administered(actor, 'change the audit log settings');
      await log.setRetentionDays(organizationId, input.retention_days);
      return { retentionDays: input.retention_days };
    },
  };
}

export type AuditLogService = ReturnType<typeof createAuditLogService>;
