import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import { crudOperations, crudRoutes, NoQuery } from '../../http/crud-routes.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import type { Channel } from './channel.js';
import { ChannelDeleted, ChannelJson, ChannelTestEnqueued, CreateChannelInput, UpdateChannelInput, toChannelJson } from './channels.schema.js';
import type { ChannelsService } from './channels.service.js';

const ChannelId = z.uuid({ message: 'notification channel id must be a UUID' });
const resource = { prefix: '/notification-channels', what: 'notification channel', listQuery: NoQuery, createInput: CreateChannelInput, updateInput: UpdateChannelInput };

export const channelsOperations: ApiOperation[] = [
  ...crudOperations({ ...resource, tag: 'Notification channels', item: ChannelJson, deleted: ChannelDeleted }),
  {
    method: 'post', path: '/notification-channels/:id/test', tag: 'Notification channels', summary: 'Send a test message',
    params: { id: ChannelId }, responses: { 202: ChannelTestEnqueued },
  },
];

export function channelsRoutes(channels: ChannelsService) {
  const router = crudRoutes({
    ...resource,
    service: channels,
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
