import { z } from 'zod';
import { timestamp } from '../../http/validate.js';
import type { AuditCursor, AuditRow } from './audit-log.repository.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;
/** One CSV download holds at most this many rows (the newest matching ones). */
export const MAX_CSV_ROWS = 10_000;
export const DEFAULT_RETENTION_DAYS = 400;
export const MAX_RETENTION_DAYS = 3650;

/** The opaque `next_before`: the (at, id) of the last row of a page. */
export const encodeCursor = (c: AuditCursor) => Buffer.from(`${c.at}|${c.id}`).toString('base64url');

const CURSOR = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)\|(\d{1,19})$/;
const cursor = z
  .string()
  .max(100)
  .transform((v, ctx) => {
    const match = CURSOR.exec(Buffer.from(v, 'base64url').toString());
    if (match) return { at: match[1]!, id: match[2]! };
    ctx.addIssue({ code: 'custom', message: 'before must be a next_before of an earlier answer' });
    return z.NEVER;
  });

const word = (field: string) => z.string().trim().min(1, `${field} must not be empty`).max(100, `${field} must be at most 100 characters`);

export const AuditLogQuery = z.strictObject({
  actor: z
    .string()
    .trim()
    .max(254)
    .transform((v) => (z.uuid().safeParse(v).success ? { id: v.toLowerCase() } : { email: v }))
    .optional()
    .meta({ description: 'A user id or API key id, or the e-mail of the user (as written when the row was made)' }),
  resource: word('resource').optional().meta({ description: 'e.g. service, alert_rule, notification_channel, member, api_key, session' }),
  resource_id: word('resource_id').optional(),
  action: word('action').optional().meta({ description: 'e.g. create, update, delete, sign_in, sign_in_failed' }),
  from: timestamp('from').optional().meta({ description: 'From this instant (inclusive)' }),
  to: timestamp('to').optional().meta({ description: 'Until this instant (exclusive)' }),
  before: cursor.optional().meta({ description: 'The `next_before` of the previous page' }),
  limit: z.coerce
    .number({ message: 'limit must be an integer' })
    .int('limit must be an integer')
    .min(1, 'limit must be at least 1')
    .max(MAX_CSV_ROWS, `limit must be at most ${MAX_CSV_ROWS}`)
    .optional()
    .meta({ description: `Rows per page, newest first: ${DEFAULT_LIMIT} by default, at most ${MAX_LIMIT}; with format=csv ${MAX_CSV_ROWS} by default and at most` }),
  format: z.enum(['json', 'csv'], { message: 'format must be json or csv' }).default('json'),
}).refine((q) => q.format === 'csv' || q.limit === undefined || q.limit <= MAX_LIMIT, { message: `limit must be at most ${MAX_LIMIT}`, path: ['limit'] });
export type AuditLogQuery = z.infer<typeof AuditLogQuery>;

export const AuditLogSettingsInput = z.strictObject({
  retention_days: z
    .number({ message: 'retention_days must be a number of days' })
    .int('retention_days must be a whole number of days')
    .min(1, 'retention_days must be at least 1')
    .max(MAX_RETENTION_DAYS, `retention_days must be at most ${MAX_RETENTION_DAYS}`),
});
export type AuditLogSettingsInput = z.infer<typeof AuditLogSettingsInput>;

const State = z.record(z.string(), z.unknown()).nullable();

export const AuditEntryJson = z
  .object({
    id: z.string().meta({ description: 'Increasing with each row written' }),
    at: z.iso.datetime(),
    organization_id: z.uuid().nullable(),
    actor_user_id: z.uuid().nullable(),
    actor_api_key_id: z.uuid().nullable().meta({ description: 'Set when an API key made the change' }),
    actor_email: z.string().nullable().meta({ description: "The user's e-mail then; for a failed sign-in, the one tried" }),
    address: z.string().nullable().meta({ description: 'The client address (behind TRUSTED_PROXIES, the forwarded one)' }),
    action: z.string(),
    resource: z.string(),
    resource_id: z.string().nullable(),
    before: State.meta({ description: 'For an update, only the fields that changed; secrets are ***' }),
    after: State,
  })
  .meta({ id: 'AuditEntry' });

export const AuditLogPageJson = z
  .object({
    entries: z.array(AuditEntryJson),
    next_before: z.string().nullable().meta({ description: 'Pass as `before` for the next, older page; null on the last page' }),
  })
  .meta({ id: 'AuditLogPage' });

export const AuditLogSettingsJson = z
  .object({ retention_days: z.int().meta({ description: `Rows older than this are deleted (daily); ${DEFAULT_RETENTION_DAYS} by default` }) })
  .meta({ id: 'AuditLogSettings' });

export function toAuditEntryJson(r: AuditRow): z.infer<typeof AuditEntryJson> {
  return {
    id: r.id,
    at: r.at.toISOString(),
    organization_id: r.organizationId,
    actor_user_id: r.actorUserId,
    actor_api_key_id: r.actorApiKeyId,
    actor_email: r.actorEmail,
    address: r.address,
    action: r.action,
    resource: r.resource,
    resource_id: r.resourceId,
    before: r.before,
    after: r.after,
  };
}
