import Router, { type RouterContext } from '@koa/router';
import { actorOf } from '../../http/authenticate.js';
import { parseInput } from '../../http/validate.js';
import { ServiceIdParam } from '../services/services.schema.js';
import type { ServicesService } from '../services/services.service.js';
import { z } from 'zod';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { CheckJson, CheckLogQuery, MetricsJson, MetricsOverviewJson, MetricsQuery, OverviewQuery, UptimeJson, UptimeQuery, toCheckJson } from './history.schema.js';
import type { HistoryService } from './history.service.js';

export function historyRoutes(services: ServicesService, history: HistoryService): Router {
  const router = new Router({ prefix: '/services/:id' });

  const readable = async (ctx: RouterContext) => {
    const id = parseInput(ServiceIdParam, ctx.params.id, 'service id');
    await services.assertReadable(actorOf(ctx), id);
    return id;
  };

  router.get('/checks', async (ctx) => {
    const query = parseInput(CheckLogQuery, ctx.query, 'query');
    const serviceId = await readable(ctx);
    const entries = await history.log({
      serviceId,
      limit: query.limit,
      before: query.before ? new Date(query.before) : undefined,
      location: query.location,
    });
    ctx.body = entries.map(toCheckJson);
  });

  router.get('/uptime', async (ctx) => {
    const query = parseInput(UptimeQuery, ctx.query, 'query');
    ctx.body = await history.uptime(await readable(ctx), query.period);
  });

  router.get('/metrics', async (ctx) => {
    const query = parseInput(MetricsQuery, ctx.query, 'query');
    ctx.body = await history.metrics(await readable(ctx), query.period, query.bucket);
  });

  return router;
}

/** `GET /metrics`: every service of the organization over one period. */
export function metricsOverviewRoutes(services: ServicesService, history: HistoryService): Router {
  const router = new Router();
  router.get('/metrics', async (ctx) => {
    const query = parseInput(OverviewQuery, ctx.query, 'query');
    ctx.body = await history.overview((await services.list(actorOf(ctx), { org: query.org })).services, query.period);
  });
  return router;
}

const id = { id: ServiceIdParam };

export const historyOperations: ApiOperation[] = [
  {
    method: 'get', path: '/services/:id/checks', tag: 'Services', summary: 'Check results, newest first',
    params: id, query: CheckLogQuery, responses: { 200: z.array(CheckJson) },
  },
  {
    method: 'get', path: '/services/:id/uptime', tag: 'Services', summary: 'Uptime over a period',
    description: 'A result counts as up when GREEN or YELLOW.', params: id, query: UptimeQuery, responses: { 200: UptimeJson },
  },
  {
    method: 'get', path: '/services/:id/metrics', tag: 'Services', summary: 'Uptime and response times over a period, by bucket',
    description: 'The bucket defaults to 1h for 24h and 7d, 1d for longer periods; a bucket too small for the period is a 400.',
    params: id, query: MetricsQuery, responses: { 200: MetricsJson },
  },
  { method: 'get', path: '/metrics', tag: 'Metrics', summary: "Every service's uptime and average response time over a period", query: OverviewQuery, responses: { 200: MetricsOverviewJson } },
];
