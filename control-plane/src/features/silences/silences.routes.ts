// /silences: list (by state), create, read, change, expire early, delete.
import Router from '@koa/router';
import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { crudOperations, crudRoutes } from '../../http/crud-routes.js';
import { actorOf } from '../../http/authenticate.js';
import { idParam, type ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import type { Silence } from './silence.js';
import { CreateSilenceInput, ListSilencesQuery, SilenceJson, toSilenceJson, UpdateSilenceInput } from './silences.schema.js';
import type { SilencesService } from './silences.service.js';

const resource = { prefix: '/silences', what: 'silence', listQuery: ListSilencesQuery, createInput: CreateSilenceInput, updateInput: UpdateSilenceInput };
const tag = 'Silences';

export const silenceOperations: ApiOperation[] = [
  ...crudOperations({ ...resource, tag, item: SilenceJson }),
  {
    method: 'post', path: '/silences/:id/expire', tag, summary: 'End a silence now',
    description: 'Alerts it kept quiet that still fire notify now. Expiring an expired silence changes nothing.',
    params: { id: idParam('silence') }, responses: { 200: SilenceJson },
  },
];

export function silenceRoutes(silences: SilencesService, clock: Clock): Router {
  const toJson = (s: Silence) => toSilenceJson(s, clock.now());
  const router = crudRoutes({ ...resource, service: silences, toJson });
  const id = z.uuid({ message: 'silence id must be a UUID' });
  router.post('/:id/expire', async (ctx) => {
    ctx.body = toJson(await silences.expire(actorOf(ctx), parseInput(id, ctx.params.id, 'silence id')));
  });
  return router;
}
