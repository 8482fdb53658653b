// The routes every organization-scoped resource shares (API.md "Other resource groups"):
// list, create (201), read, partial update and delete, each parsing its input with the
// resource's schemas and calling one service function.
import Router from '@koa/router';
import { z } from 'zod';
import type { Actor } from '../features/auth/actor.js';
import { actorOf } from './authenticate.js';
import { idParam, type ApiOperation, type SuccessBody } from './openapi/api-operation.js';
import { parseInput } from './validate.js';

export interface CrudService<T, Q, C, U> {
  list(actor: Actor, query: Q): Promise<T[]>;
  create(actor: Actor, input: C): Promise<T>;
  get(actor: Actor, id: string): Promise<T>;
  update(actor: Actor, id: string, input: U): Promise<T>;
  remove(actor: Actor, id: string): Promise<void>;
}

export interface CrudRoutes<T, Q, C, U> {
  prefix: string;
  /** "alert rule": used in messages about a bad id. */
  what: string;
  service: CrudService<T, Q, C, U>;
  listQuery: z.ZodType<Q>;
  createInput: z.ZodType<C>;
  updateInput: z.ZodType<U>;
  toJson(item: T): unknown;
  /** The answer to a delete; by default 204 with no body. */
  deleted?(id: string): unknown;
}

export function crudRoutes<T, Q, C, U>(r: CrudRoutes<T, Q, C, U>): Router {
  const router = new Router({ prefix: r.prefix });
  const idSchema = z.uuid({ message: `${r.what} id must be a UUID` });
  const idOf = (params: Record<string, string | undefined>) => parseInput(idSchema, params.id, `${r.what} id`);

  router.get('/', async (ctx) => {
    const query = parseInput(r.listQuery, ctx.query, 'query');
    ctx.body = (await r.service.list(actorOf(ctx), query)).map(r.toJson);
  });
  router.post('/', async (ctx) => {
    const input = parseInput(r.createInput, ctx.request.body);
    ctx.status = 201;
    ctx.body = r.toJson(await r.service.create(actorOf(ctx), input));
  });
  router.get('/:id', async (ctx) => {
    ctx.body = r.toJson(await r.service.get(actorOf(ctx), idOf(ctx.params)));
  });
  router.put('/:id', async (ctx) => {
    const id = idOf(ctx.params);
    ctx.body = r.toJson(await r.service.update(actorOf(ctx), id, parseInput(r.updateInput, ctx.request.body)));
  });
  router.delete('/:id', async (ctx) => {
    const id = idOf(ctx.params);
    await r.service.remove(actorOf(ctx), id);
    if (r.deleted) ctx.body = r.deleted(id);
    else ctx.status = 204;
  });
  return router;
}

/** For resources listed without filters: any query parameter is refused. */
export const NoQuery = z.strictObject({});

/** What the routes and their OpenAPI operations share: the path and the request schemas. */
export type CrudResource<Q, C, U> = Pick<CrudRoutes<unknown, Q, C, U>, 'prefix' | 'what' | 'listQuery' | 'createInput' | 'updateInput'>;

/** The OpenAPI operations of crudRoutes: `item` is the shape every answer but delete has. */
export function crudOperations(
  r: CrudResource<unknown, unknown, unknown> & { tag: string; item: z.ZodType; deleted?: SuccessBody; errors?: number[] },
): ApiOperation[] {
  const { prefix, what, tag } = r;
  const id = { id: idParam(what) };
  // Even an empty query schema is strict: an unknown parameter is a 400.
  const query = r.listQuery instanceof z.ZodObject ? r.listQuery : undefined;
  const errors = r.errors ?? [];
  return [
    { method: 'get', path: prefix, tag, summary: `List ${what}s`, ...(query ? { query } : {}), responses: { 200: z.array(r.item) } },
    { method: 'post', path: prefix, tag, summary: `Create a ${what}`, body: r.createInput, responses: { 201: r.item }, errors },
    { method: 'get', path: `${prefix}/:id`, tag, summary: `Read a ${what}`, params: id, responses: { 200: r.item } },
    { method: 'put', path: `${prefix}/:id`, tag, summary: `Change a ${what}: only the fields sent change`, params: id, body: r.updateInput, responses: { 200: r.item }, errors },
    { method: 'delete', path: `${prefix}/:id`, tag, summary: `Delete a ${what}`, params: id, responses: r.deleted === undefined ? { 204: null } : { 200: r.deleted } },
  ];
}
