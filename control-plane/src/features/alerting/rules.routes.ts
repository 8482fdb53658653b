import Router from '@koa/router';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import { parseInput } from '../../http/validate.js';
import { CreateRuleInput, ListRulesQuery, UpdateRuleInput, toRuleJson } from './rules.schema.js';
import type { RulesService } from './rules.service.js';

const RuleId = z.uuid({ message: 'alert rule id must be a UUID' });

export function rulesRoutes(rules: RulesService): Router {
  const router = new Router({ prefix: '/alert-rules' });
  const idOf = (params: Record<string, string | undefined>) => parseInput(RuleId, params.id, 'alert rule id');

  router.get('/', async (ctx) => {
    const query = parseInput(ListRulesQuery, ctx.query, 'query');
    ctx.body = (await rules.list(actorOf(ctx), query.service_id)).map(toRuleJson);
  });
  router.post('/', async (ctx) => {
    const input = parseInput(CreateRuleInput, ctx.request.body);
    ctx.status = 201;
    ctx.body = toRuleJson(await rules.create(actorOf(ctx), input));
  });
  router.get('/:id', async (ctx) => {
    ctx.body = toRuleJson(await rules.get(actorOf(ctx), idOf(ctx.params)));
  });
  router.put('/:id', async (ctx) => {
    const id = idOf(ctx.params);
    ctx.body = toRuleJson(await rules.update(actorOf(ctx), id, parseInput(UpdateRuleInput, ctx.request.body)));
  });
  router.delete('/:id', async (ctx) => {
    await rules.remove(actorOf(ctx), idOf(ctx.params));
    ctx.status = 204;
  });
  return router;
}
