import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import { crudRoutes, NoQuery } from '../../http/crud-routes.js';
import { parseInput } from '../../http/validate.js';
import type { Channel } from './channel.js';
import { CreateChannelInput, UpdateChannelInput, toChannelJson } from './channels.schema.js';
import type { ChannelsService } from './channels.service.js';

const ChannelId = z.uuid({ message: 'notification channel id must be a UUID' });

export function channelsRoutes(channels: ChannelsService) {
  const router = crudRoutes({
    prefix: '/notification-channels',
    what: 'notification channel',
    service: channels,
    listQuery: NoQuery,
    createInput: CreateChannelInput,
    updateInput: UpdateChannelInput,
    toJson: (c: Channel) => toChannelJson(c, channels.openSecret),
    deleted: (id) => ({ message: 'notification channel deleted', id }),
  });
  router.post('/:id/test', async (ctx) => {
    const deliveryId = await channels.test(actorOf(ctx), parseInput(ChannelId, ctx.params.id, 'notification channel id'));
    ctx.status = 202;
    ctx.body = { status: 'test notification enqueued', delivery_id: deliveryId };
  });
  return router;
}
