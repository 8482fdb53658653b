import Router from '@koa/router';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import { parseInput } from '../../http/validate.js';
import { toAlertJson } from './alert.js';
import type { AlertsService } from './alerts.service.js';

const AlertId = z.uuid({ message: 'alert id must be a UUID' });
export const ListAlertsQuery = z.strictObject({
  status: z.enum(['active', 'firing', 'acknowledged', 'resolved', 'all'], { message: 'status must be firing, acknowledged, resolved, active or all' }).default('active'),
  service_id: z.uuid({ message: 'service_id must be a UUID' }).optional(),
  limit: z.coerce.number({ message: 'limit must be an integer' }).int().min(1).max(1000).default(100),
});

export function alertsRoutes(alerts: AlertsService): Router {
  const router = new Router({ prefix: '/alerts' });
  const idOf = (params: Record<string, string | undefined>) => parseInput(AlertId, params.id, 'alert id');

  router.get('/', async (ctx) => {
    const q = parseInput(ListAlertsQuery, ctx.query, 'query');
    ctx.body = (await alerts.list(actorOf(ctx), { status: q.status, serviceId: q.service_id, limit: q.limit })).map(toAlertJson);
  });
  router.get('/:id', async (ctx) => {
    ctx.body = toAlertJson(await alerts.get(actorOf(ctx), idOf(ctx.params)));
  });
  router.post('/:id/acknowledge', async (ctx) => {
    ctx.body = toAlertJson(await alerts.acknowledge(actorOf(ctx), idOf(ctx.params)));
  });
  router.post('/:id/resolve', async (ctx) => {
    ctx.body = toAlertJson(await alerts.resolve(actorOf(ctx), idOf(ctx.params)));
  });
  router.get('/:id/deliveries', async (ctx) => {
    ctx.body = await alerts.deliveries(actorOf(ctx), idOf(ctx.params));
  });
  return router;
}
