// GET /audit-log (JSON pages or a CSV file) and its retention setting. No route changes or
// deletes a row.
import Router from '@koa/router';
import { actorOf } from '../../http/authenticate.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import {
  AuditLogPageJson, AuditLogQuery, AuditLogSettingsInput, AuditLogSettingsJson, DEFAULT_LIMIT, encodeCursor, MAX_CSV_ROWS, MAX_LIMIT, MAX_RETENTION_DAYS, toAuditEntryJson,
} from './audit-log.schema.js';
import type { AuditLogService } from './audit-log.service.js';

const tag = 'Audit log';
export const auditLogOperations: ApiOperation[] = [
  {
    method: 'get', path: '/audit-log', tag, summary: 'Who changed what, newest first (admins and owners)',
    description:
      'Every change of configuration and access made through the API, sign-ins and failed sign-ins: when, who (user or API key), from which address, ' +
      'what (resource, id, action) and the changed fields before and after, secrets masked. ' +
      `Pages of \`limit\` rows (${DEFAULT_LIMIT} by default, at most ${MAX_LIMIT}); pass \`next_before\` as \`before\` for the next one. ` +
      `With \`format=csv\` the answer is a \`text/csv\` attachment of the newest ${MAX_CSV_ROWS} matching rows at most (before and after as JSON); ` +
      'when more match, the X-Next-Before header gives the cursor of the rest.',
    query: AuditLogQuery, responses: { 200: { json: AuditLogPageJson, orFile: 'text/csv' } },
  },
  { method: 'get', path: '/audit-log/settings', tag, summary: 'How long the audit log is kept (admins and owners)', responses: { 200: AuditLogSettingsJson } },
  {
    method: 'put', path: '/audit-log/settings', tag, summary: 'Change how long the audit log is kept (admins and owners)',
    description: `retention_days from 1 to ${MAX_RETENTION_DAYS}; rows older than that are deleted once a day.`,
    body: AuditLogSettingsInput, responses: { 200: AuditLogSettingsJson },
  },
];

export function auditLogRoutes(auditLog: AuditLogService): Router {
  const router = new Router({ prefix: '/audit-log' });
  router.get('/', async (ctx) => {
    const query = parseInput(AuditLogQuery, ctx.query, 'query');
    if (query.format === 'csv') {
      const file = await auditLog.exportCsv(actorOf(ctx), query);
      if (file.next) ctx.set('X-Next-Before', encodeCursor(file.next));
      ctx.attachment(file.filename);
      ctx.type = 'text/csv; charset=utf-8';
      ctx.body = file.csv;
      return;
    }
    const page = await auditLog.list(actorOf(ctx), query);
    ctx.body = { entries: page.rows.map(toAuditEntryJson), next_before: page.next && encodeCursor(page.next) };
  });
  router.get('/settings', async (ctx) => {
    const { retentionDays } = await auditLog.settings(actorOf(ctx));
    ctx.body = { retention_days: retentionDays };
  });
  router.put('/settings', async (ctx) => {
    const { retentionDays } = await auditLog.updateSettings(actorOf(ctx), parseInput(AuditLogSettingsInput, ctx.request.body));
    ctx.body = { retention_days: retentionDays };
  });
  return router;
}
