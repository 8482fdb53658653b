import Router from '@koa/router';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import { parseInput } from '../../http/validate.js';
import { CreatePolicyInput, UpdatePolicyInput } from './escalation.schema.js';
import type { EscalationService } from './escalation.service.js';
import { toPolicyJson } from './policy.js';

const PolicyId = z.uuid({ message: 'escalation policy id must be a UUID' });

export function escalationRoutes(policies: EscalationService): Router {
  const router = new Router({ prefix: '/escalation-policies' });
  const idOf = (params: Record<string, string | undefined>) => parseInput(PolicyId, params.id, 'escalation policy id');

  router.get('/', async (ctx) => {
    ctx.body = (await policies.list(actorOf(ctx))).map(toPolicyJson);
  });
  router.post('/', async (ctx) => {
    const input = parseInput(CreatePolicyInput, ctx.request.body);
    ctx.status = 201;
    ctx.body = toPolicyJson(await policies.create(actorOf(ctx), input));
  });
  router.get('/:id', async (ctx) => {
    ctx.body = toPolicyJson(await policies.get(actorOf(ctx), idOf(ctx.params)));
  });
  router.put('/:id', async (ctx) => {
    const id = idOf(ctx.params);
    ctx.body = toPolicyJson(await policies.update(actorOf(ctx), id, parseInput(UpdatePolicyInput, ctx.request.body)));
  });
  router.delete('/:id', async (ctx) => {
    await policies.remove(actorOf(ctx), idOf(ctx.params));
    ctx.status = 204;
  });
  return router;
}
