import Router from '@koa/router';
import { actorOf } from '../../http/authenticate.js';
import { parseInput } from '../../http/validate.js';
import {
  CreateServiceInput,
  ListServicesQuery,
  ServiceIdParam,
  ServicesSummaryQuery,
  UpdateServiceInput,
  toServiceJson,
  toServiceOverviewJson,
  toServicesSummaryJson,
} from './services.schema.js';
import type { ServicesService } from './services.service.js';

export function servicesRoutes(services: ServicesService): Router {
  const router = new Router({ prefix: '/services' });
  const idOf = (params: Record<string, string | undefined>) => parseInput(ServiceIdParam, params.id, 'service id');

  router.get('/', async (ctx) => {
    const query = parseInput(ListServicesQuery, ctx.query, 'query');
    const { total, services: found } = await services.list(actorOf(ctx), query);
    ctx.set('X-Total-Count', String(total));
    ctx.body = found.map(toServiceJson);
  });

  // Before /:id, which would take "summary" and "overview" for ids.
  router.get('/summary', async (ctx) => {
    const query = parseInput(ServicesSummaryQuery, ctx.query, 'query');
    ctx.body = toServicesSummaryJson(await services.summary(actorOf(ctx), query));
  });

  router.get('/overview', async (ctx) => {
    const query = parseInput(ListServicesQuery, ctx.query, 'query');
    const { total, services: rows } = await services.overview(actorOf(ctx), query);
    ctx.body = { total, services: rows.map(toServiceOverviewJson) };
  });

  router.post('/', async (ctx) => {
    const input = parseInput(CreateServiceInput, ctx.request.body);
    ctx.status = 201;
    ctx.body = toServiceJson(await services.create(actorOf(ctx), input));
  });

  router.get('/:id', async (ctx) => {
    ctx.body = toServiceJson(await services.get(actorOf(ctx), idOf(ctx.params)));
  });

  router.put('/:id', async (ctx) => {
    const id = idOf(ctx.params);
    const input = parseInput(UpdateServiceInput, ctx.request.body);
    ctx.body = toServiceJson(await services.update(actorOf(ctx), id, input));
  });

  router.delete('/:id', async (ctx) => {
    await services.remove(actorOf(ctx), idOf(ctx.params));
    ctx.status = 204;
  });

  router.post('/:id/check', async (ctx) => {
    await services.checkNow(actorOf(ctx), idOf(ctx.params));
    ctx.status = 202;
    ctx.body = { status: 'check enqueued' };
  });

  return router;
}
