import Router from '@koa/router';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import { parseInput } from '../../http/validate.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import {
  CheckEnqueued,
  CreateServiceInput,
  ListServicesQuery,
  ServiceIdParam,
  ServiceJson,
  ServicesOverviewJson,
  ServicesSummaryJson,
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

const id = { id: ServiceIdParam };
const tag = 'Services';

export const servicesOperations: ApiOperation[] = [
  {
    method: 'get', path: '/services', tag, summary: 'List services',
    description: 'Ordered by created_at unless `sort` says otherwise. `org=<slug>` lists another organization the caller belongs to. The total before paging is in the X-Total-Count header.',
    query: ListServicesQuery, responses: { 200: z.array(ServiceJson) },
  },
  { method: 'get', path: '/services/summary', tag, summary: 'Count services by status, with the values the filters can take', query: ServicesSummaryQuery, responses: { 200: ServicesSummaryJson } },
  { method: 'get', path: '/services/overview', tag, summary: 'A page of services with per-location status and a 24-hour trend', query: ListServicesQuery, responses: { 200: ServicesOverviewJson } },
  {
    method: 'post', path: '/services', tag, summary: 'Create a service',
    description: 'check_type is case-insensitive and answered upper case. The free plan allows 5 services (403 for the 6th). The first check runs at once.',
    body: CreateServiceInput, responses: { 201: ServiceJson },
  },
  { method: 'get', path: '/services/:id', tag, summary: 'Read a service', params: id, responses: { 200: ServiceJson } },
  { method: 'put', path: '/services/:id', tag, summary: 'Change a service: only the fields sent change', params: id, body: UpdateServiceInput, responses: { 200: ServiceJson } },
  { method: 'delete', path: '/services/:id', tag, summary: 'Delete a service and its history', params: id, responses: { 204: null } },
  { method: 'post', path: '/services/:id/check', tag, summary: 'Check a service now', params: id, responses: { 202: CheckEnqueued } },
];
