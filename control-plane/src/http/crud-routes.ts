// The routes every organization-scoped resource shares (API.md "Other resource groups"):
// list, create (201), read, partial update and delete, each parsing its input with the
// resource's schemas and calling one service function.
import Router from '@koa/router';
import { z } from 'zod';
import type { Actor } from '../features/auth/actor.js';
import { actorOf } from './authenticate.js';
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
