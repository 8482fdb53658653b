import Router from '@koa/router';
import { z } from 'zod';
import { AppError } from '../../errors.js';
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
  TestRunJson,
  TestServiceInput,
  UpdateServiceInput,
  toServiceJson,
  toServiceOverviewJson,
  toServicesSummaryJson,
  toTestRunJson,
} from './services.schema.js';
import type { ServicesService } from './services.service.js';
import { BulkServicesInput, BulkServicesJson, MAX_BULK_IDS, toBulkServicesJson } from './bulk-services.schema.js';
import type { TestRunService } from '../agents/test-runs.js';

export function servicesRoutes(services: ServicesService, testRuns: TestRunService): Router {
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

  // Before the /:id routes, like the other fixed paths.
  router.post('/test', async (ctx) => {
    const input = parseInput(TestServiceInput, ctx.request.body);
    const actor = actorOf(ctx);
    // Editing a saved service: its stored secrets stand behind the masks the form sends back.
    const saved = input.service_id === undefined ? undefined : await services.storedOptions(actor, input.service_id);
    const answer = await testRuns.run(actor, input, saved);
    // No answer (none in time, or the agent went away) is a 504, not a fault of the request.
    if (!answer.answered) throw new AppError('NO_ANSWER', answer.reason);
    ctx.body = toTestRunJson(answer);
  });

  router.post('/bulk', async (ctx) => {
    const input = parseInput(BulkServicesInput, ctx.request.body);
    ctx.body = toBulkServicesJson(await services.bulk(actorOf(ctx), input));
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
  {
    method: 'post', path: '/services/test', tag, summary: 'Run an unsaved service\'s check once',
    description:
      'Takes a body as for create, and `location` (the first of `locations` by default); runs the check once on an online agent of that location that may serve the organization, and answers with its result within timeout_seconds + 5 s. Nothing is stored: no result, status change, alert or event. With `service_id` (a saved service the body edits), a secret option sent back as ******** runs with its stored value. 404 for a service_id the caller may not write; 409 when no agent there may run it; 504 when no agent answered in time.',
    body: TestServiceInput, responses: { 200: TestRunJson }, errors: [404, 409, 504],
  },
  {
    method: 'post', path: '/services/bulk', tag, summary: 'Act on many services at once',
    description:
      `One action on 1 to ${MAX_BULK_IDS} services of one organization (the token's, or organization_id), in one transaction; the answer says what was done to each id. ` +
      'pause / resume: outcome paused, resumed or unchanged; agents drop a paused service and take a resumed one back within a second. ' +
      'delete: deleted, as DELETE /services/{id}. add_tags / remove_tags (with tags): updated or unchanged. ' +
      'set_locations (with locations, validated as for an update): updated or unchanged; agents follow within a second. ' +
      'check: queued, as POST /services/{id}/check (a paused service is skipped). ' +
      'An id of another organization, or unknown, is not_found and nothing is done to it. A heartbeat or certificate watch is skipped (with the reason) by every action but delete. ' +
      'Member or above (viewers: 403). 400 for a bad body, including add_tags that would give a service more than 50 tags: then nothing changes.',
    body: BulkServicesInput, responses: { 200: BulkServicesJson },
  },
  { method: 'get', path: '/services/:id', tag, summary: 'Read a service', params: id, responses: { 200: ServiceJson } },
  { method: 'put', path: '/services/:id', tag, summary: 'Change a service: only the fields sent change', params: id, body: UpdateServiceInput, responses: { 200: ServiceJson } },
  { method: 'delete', path: '/services/:id', tag, summary: 'Delete a service and its history', params: id, responses: { 204: null } },
  {
    method: 'post', path: '/services/:id/check', tag, summary: 'Check a service now',
    description: '409 while the service is paused: no agent checks it.', params: id, responses: { 202: CheckEnqueued }, errors: [409],
  },
];
