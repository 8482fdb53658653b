// /reports/uptime (JSON or CSV) and /reports/settings (the monthly report e-mail).
import Router from '@koa/router';
import { actorOf } from '../../http/authenticate.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import { reportCsv, reportFileName } from './report-csv.js';
import { ReportSettingsJson, toReportSettingsJson, toUptimeReportJson, UpdateReportSettingsInput, UptimeReportJson, UptimeReportQuery } from './reports.schema.js';
import type { ReportSettingsService } from './report-settings.service.js';
import type { UptimeReportsService } from './uptime-reports.service.js';

export const reportsOperations: ApiOperation[] = [
  {
    method: 'get', path: '/reports/uptime', tag: 'Reports', summary: 'Uptime report of services over a range',
    description:
      'Any range up to 400 days, read from the rollups. Every service of the organization unless `service_ids` or `tags` narrows it. ' +
      'With `format=csv` the answer is `text/csv` (a header row, one row per service, the same fields) as an attachment.',
    query: UptimeReportQuery, responses: { 200: { json: UptimeReportJson, orFile: 'text/csv' } }, errors: [404],
  },
  { method: 'get', path: '/reports/settings', tag: 'Reports', summary: 'The monthly report e-mail settings', responses: { 200: ReportSettingsJson } },
  {
    method: 'put', path: '/reports/settings', tag: 'Reports', summary: 'Change the monthly report e-mail settings',
    description:
      "Admin or owner. When enabled, the previous month's report (a text summary, the CSV attached) goes to the recipients at the start of each UTC month; " +
      'turned on mid-month, the first one is of the current month. Needs SMTP configured and at least one recipient.',
    body: UpdateReportSettingsInput, responses: { 200: ReportSettingsJson },
  },
];

export function reportsRoutes(reports: UptimeReportsService, settings: ReportSettingsService): Router {
  const router = new Router({ prefix: '/reports' });
  router.get('/uptime', async (ctx) => {
    const query = parseInput(UptimeReportQuery, ctx.query, 'query');
    const report = await reports.uptime(actorOf(ctx), query);
    if (query.format === 'csv') {
      ctx.attachment(reportFileName(report));
      ctx.type = 'text/csv; charset=utf-8';
      ctx.body = reportCsv(report);
    } else {
      ctx.body = toUptimeReportJson(report);
    }
  });
  router.get('/settings', async (ctx) => {
    ctx.body = toReportSettingsJson(await settings.get(actorOf(ctx)));
  });
  router.put('/settings', async (ctx) => {
    const input = parseInput(UpdateReportSettingsInput, ctx.request.body);
    ctx.body = toReportSettingsJson(await settings.update(actorOf(ctx), input));
  });
  return router;
}
