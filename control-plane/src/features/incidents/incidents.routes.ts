// /status-pages/{id}/incidents: written incidents and their updates.
import Router from '@koa/router';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import { AddUpdateInput, CreateIncidentInput, EditUpdateInput, IncidentJson, IncidentListQuery, UpdateIncidentInput, toIncidentJson } from './incidents.schema.js';
import type { IncidentsService } from './incidents.service.js';

const PageId = z.uuid({ message: 'status page id must be a UUID' });
const IncidentId = z.uuid({ message: 'incident id must be a UUID' });
const UpdateId = z.uuid({ message: 'update id must be a UUID' });
const tag = 'Incidents';
const incident = { id: PageId, incident_id: IncidentId };
const update = { ...incident, update_id: UpdateId };

export const incidentsOperations: ApiOperation[] = [
  { method: 'get', path: '/status-pages/:id/incidents', tag, summary: "A status page's written incidents, newest first", params: { id: PageId }, query: IncidentListQuery, responses: { 200: z.array(IncidentJson) } },
  {
    method: 'post', path: '/status-pages/:id/incidents', tag, summary: 'Write an incident with its first update', params: { id: PageId }, body: CreateIncidentInput, responses: { 201: IncidentJson },
    description: "Subscribers of the page hear of it (those who chose components: when it names one of theirs). An alert_id or affected service of another organization is a 404.",
  },
  { method: 'get', path: '/status-pages/:id/incidents/:incident_id', tag, summary: 'Read an incident with its timeline', params: incident, responses: { 200: IncidentJson } },
  { method: 'put', path: '/status-pages/:id/incidents/:incident_id', tag, summary: "Change an incident's title, impact or start", params: incident, body: UpdateIncidentInput, responses: { 200: IncidentJson } },
  { method: 'delete', path: '/status-pages/:id/incidents/:incident_id', tag, summary: 'Delete an incident and its timeline', params: incident, responses: { 204: null } },
  {
    method: 'post', path: '/status-pages/:id/incidents/:incident_id/updates', tag, summary: 'Post an update', params: incident, body: AddUpdateInput, responses: { 201: IncidentJson },
    description: "The incident takes the update's status (resolved sets resolved_at) and, when given, its affected list; subscribers hear of it.",
  },
  { method: 'put', path: '/status-pages/:id/incidents/:incident_id/updates/:update_id', tag, summary: "Correct an update's status or message", description: 'Subscribers are not told again.', params: update, body: EditUpdateInput, responses: { 200: IncidentJson } },
  { method: 'delete', path: '/status-pages/:id/incidents/:incident_id/updates/:update_id', tag, summary: 'Delete an update', description: 'The last update left is a 409: delete the incident instead.', params: update, responses: { 200: IncidentJson }, errors: [409] },
];

export function incidentsRoutes(incidents: IncidentsService): Router {
  const router = new Router({ prefix: '/status-pages/:id/incidents' });
  const ids = (params: Record<string, string | undefined>) => ({
    page: parseInput(PageId, params.id, 'status page id'),
    incident: params.incident_id === undefined ? '' : parseInput(IncidentId, params.incident_id, 'incident id'),
    update: params.update_id === undefined ? '' : parseInput(UpdateId, params.update_id, 'update id'),
  });

  router.get('/', async (ctx) => {
    const { page } = ids(ctx.params);
    ctx.body = (await incidents.list(actorOf(ctx), page, parseInput(IncidentListQuery, ctx.query, 'query'))).map(toIncidentJson);
  });
  router.post('/', async (ctx) => {
    const { page } = ids(ctx.params);
    ctx.status = 201;
    ctx.body = toIncidentJson(await incidents.create(actorOf(ctx), page, parseInput(CreateIncidentInput, ctx.request.body)));
  });
  router.get('/:incident_id', async (ctx) => {
    const { page, incident } = ids(ctx.params);
    ctx.body = toIncidentJson(await incidents.get(actorOf(ctx), page, incident));
  });
  router.put('/:incident_id', async (ctx) => {
    const { page, incident } = ids(ctx.params);
    ctx.body = toIncidentJson(await incidents.update(actorOf(ctx), page, incident, parseInput(UpdateIncidentInput, ctx.request.body)));
  });
  router.delete('/:incident_id', async (ctx) => {
    const { page, incident } = ids(ctx.params);
    await incidents.remove(actorOf(ctx), page, incident);
    ctx.status = 204;
  });
  router.post('/:incident_id/updates', async (ctx) => {
    const { page, incident } = ids(ctx.params);
    ctx.status = 201;
    ctx.body = toIncidentJson(await incidents.addUpdate(actorOf(ctx), page, incident, parseInput(AddUpdateInput, ctx.request.body)));
  });
  router.put('/:incident_id/updates/:update_id', async (ctx) => {
    const { page, incident, update } = ids(ctx.params);
    ctx.body = toIncidentJson(await incidents.editUpdate(actorOf(ctx), page, incident, update, parseInput(EditUpdateInput, ctx.request.body)));
  });
  router.delete('/:incident_id/updates/:update_id', async (ctx) => {
    const { page, incident, update } = ids(ctx.params);
    ctx.body = toIncidentJson(await incidents.deleteUpdate(actorOf(ctx), page, incident, update));
  });
  return router;
}
