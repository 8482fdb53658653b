import Router from '@koa/router';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import { parseInput } from '../../http/validate.js';
import { CreateChannelInput, UpdateChannelInput, toChannelJson } from './channels.schema.js';
import type { ChannelsService } from './channels.service.js';
import type { Channel } from './channel.js';

const ChannelId = z.uuid({ message: 'notification channel id must be a UUID' });

export function channelsRoutes(channels: ChannelsService): Router {
  const router = new Router({ prefix: '/notification-channels' });
  const json = (c: Channel) => toChannelJson(c, channels.openSecret);
  const idOf = (params: Record<string, string | undefined>) => parseInput(ChannelId, params.id, 'notification channel id');

  router.get('/', async (ctx) => {
    ctx.body = (await channels.list(actorOf(ctx))).map(json);
  });
  router.post('/', async (ctx) => {
    const input = parseInput(CreateChannelInput, ctx.request.body);
    ctx.status = 201;
    ctx.body = json(await channels.create(actorOf(ctx), input));
  });
  router.get('/:id', async (ctx) => {
    ctx.body = json(await channels.get(actorOf(ctx), idOf(ctx.params)));
  });
  router.put('/:id', async (ctx) => {
    const id = idOf(ctx.params);
    ctx.body = json(await channels.update(actorOf(ctx), id, parseInput(UpdateChannelInput, ctx.request.body)));
  });
  router.delete('/:id', async (ctx) => {
    const id = idOf(ctx.params);
    await channels.remove(actorOf(ctx), id);
    ctx.body = { message: 'notification channel deleted', id };
  });
  router.post('/:id/test', async (ctx) => {
    const deliveryId = await channels.test(actorOf(ctx), idOf(ctx.params));
    ctx.status = 202;
    ctx.body = { status: 'test notification enqueued', delivery_id: deliveryId };
  });
  return router;
}
