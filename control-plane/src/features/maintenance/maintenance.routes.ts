// /maintenance-windows: full CRUD, organization-scoped (API.md "Other resource groups").
import Router from '@koa/router';
import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { actorOf } from '../../http/authenticate.js';
import { parseInput } from '../../http/validate.js';
import { CreateWindowInput, UpdateWindowInput, toWindowJson } from './maintenance.schema.js';
import type { MaintenanceService } from './maintenance.service.js';
import type { MaintenanceWindow } from './maintenance.repository.js';

const WindowId = z.uuid({ message: 'maintenance window id must be a UUID' });

export function maintenanceRoutes(windows: MaintenanceService, clock: Clock): Router {
  const router = new Router({ prefix: '/maintenance-windows' });
  const json = (w: MaintenanceWindow) => toWindowJson(w, clock.now());
  const idOf = (params: Record<string, string | undefined>) => parseInput(WindowId, params.id, 'maintenance window id');

  router.get('/', async (ctx) => {
    ctx.body = (await windows.list(actorOf(ctx))).map(json);
  });
  router.post('/', async (ctx) => {
    const input = parseInput(CreateWindowInput, ctx.request.body);
    ctx.status = 201;
    ctx.body = json(await windows.create(actorOf(ctx), input));
  });
  router.get('/:id', async (ctx) => {
    ctx.body = json(await windows.get(actorOf(ctx), idOf(ctx.params)));
  });
  router.put('/:id', async (ctx) => {
    const id = idOf(ctx.params);
    ctx.body = json(await windows.update(actorOf(ctx), id, parseInput(UpdateWindowInput, ctx.request.body)));
  });
  router.delete('/:id', async (ctx) => {
    await windows.remove(actorOf(ctx), idOf(ctx.params));
    ctx.status = 204;
  });
  return router;
}
