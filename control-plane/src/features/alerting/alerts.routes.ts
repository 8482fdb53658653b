import Router from '@koa/router';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import { parseInput } from '../../http/validate.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { toAlertJson } from './alert.js';
import type { AlertsService } from './alerts.service.js';

const AlertId = z.uuid({ message: 'alert id must be a UUID' });
export const ListAlertsQuery = z.strictObject({
  status: z.enum(['active', 'firing', 'acknowledged', 'resolved', 'all'], { message: 'status must be firing, acknowledged, resolved, active or all' }).default('active'),
  service_id: z.uuid({ message: 'service_id must be a UUID' }).optional(),
  limit: z.coerce.number({ message: 'limit must be an integer' }).int().min(1).max(1000).default(100),
});

export const AlertJson = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    kind: z.enum(['service', 'no_data', 'agent_offline', 'location_offline']).meta({
      description: "service: a rule matched the service's status; no_data: the service got no result for three intervals; agent_offline: an agent had no session for AGENT_OFFLINE_SECONDS; location_offline: every agent of a location did",
    }),
    service_id: z.uuid().nullable().meta({ description: 'null for an agent or location alert' }),
    service_name: z.string().meta({ description: "The service's name, or the agent's or location's" }),
    alert_rule_id: z.uuid().nullable().meta({ description: 'null for an agent or location alert no rule asked for (every enabled channel hears it)' }),
    agent_id: z.uuid().nullable(),
    location: z.string().nullable(),
    severity: z.enum(['critical', 'warning', 'info']),
    title: z.string(),
    message: z.string(),
    status: z.enum(['firing', 'acknowledged', 'resolved']),
    silenced_by: z.uuid().nullable().meta({ description: 'The silence covering the alert: it is open but notifies nobody' }),
    fired_at: z.iso.datetime(),
    last_fired_at: z.iso.datetime(),
    acknowledged_at: z.iso.datetime().nullable(),
    acknowledged_by: z.uuid().nullable(),
    resolved_at: z.iso.datetime().nullable(),
    resolved_by: z.uuid().nullable().meta({ description: 'null when resolved automatically' }),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'Alert' });

export const DeliveryJson = z
  .object({
    id: z.uuid(),
    channel_id: z.uuid().nullable(),
    recipient: z.string().nullable().meta({ description: 'For a delivery to a team member: their e-mail address' }),
    event: z.string(),
    status: z.string(),
    attempts: z.int(),
    next_attempt_at: z.iso.datetime().nullable(),
    last_error: z.string().nullable(),
    created_at: z.iso.datetime(),
    delivered_at: z.iso.datetime().nullable(),
    history: z.array(z.object({ attempted_at: z.iso.datetime(), status_code: z.int().nullable(), error: z.string().nullable(), duration_ms: z.number() })),
  })
  .meta({ id: 'Delivery' });

const id = { id: AlertId };
const tag = 'Alerts';

export const alertsOperations: ApiOperation[] = [
  { method: 'get', path: '/alerts', tag, summary: 'List alerts, newest first', description: 'By default the active ones (firing and acknowledged).', query: ListAlertsQuery, responses: { 200: z.array(AlertJson) } },
  { method: 'get', path: '/alerts/:id', tag, summary: 'Read an alert', params: id, responses: { 200: AlertJson } },
  {
    method: 'post', path: '/alerts/:id/acknowledge', tag, summary: 'Acknowledge an alert', params: id, responses: { 200: AlertJson }, errors: [409],
    description: 'Acknowledging an acknowledged alert changes nothing; a resolved one is a 409.',
  },
  { method: 'post', path: '/alerts/:id/resolve', tag, summary: 'Resolve an alert', description: 'Resolving a resolved alert changes nothing.', params: id, responses: { 200: AlertJson } },
  { method: 'get', path: '/alerts/:id/deliveries', tag, summary: 'Every notification sent for an alert, with its attempts', params: id, responses: { 200: z.array(DeliveryJson) } },
];

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
