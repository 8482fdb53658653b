import Router, { type RouterContext } from '@koa/router';
import { actorOf } from '../../http/authenticate.js';
import { parseInput } from '../../http/validate.js';
import { ServiceIdParam } from '../services/services.schema.js';
import type { ServicesService } from '../services/services.service.js';
import { CheckLogQuery, MetricsQuery, OverviewQuery, UptimeQuery, toCheckJson } from './history.schema.js';
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
