import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import { crudOperations, crudRoutes, NoQuery } from '../../http/crud-routes.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import type { Channel } from './channel.js';
import { ChannelDeleted, ChannelJson, ChannelTestEnqueued, CreateChannelInput, UpdateChannelInput, toChannelJson } from './channels.schema.js';
import { PreviewTemplateInput, TemplatePreviewJson } from './channel-template.schema.js';
import type { ChannelsService } from './channels.service.js';

const ChannelId = z.uuid({ message: 'notification channel id must be a UUID' });
const resource = { prefix: '/notification-channels', what: 'notification channel', listQuery: NoQuery, createInput: CreateChannelInput, updateInput: UpdateChannelInput };

export const channelsOperations: ApiOperation[] = [
  ...crudOperations({ ...resource, tag: 'Notification channels', item: ChannelJson, deleted: ChannelDeleted }),
  {
    method: 'post', path: '/notification-channels/:id/test', tag: 'Notification channels', summary: 'Send a test message',
    params: { id: ChannelId }, responses: { 202: ChannelTestEnqueued },
  },
  {
    method: 'post', path: '/notification-channels/preview', tag: 'Notification channels', summary: 'Preview a message template',
    description: 'Renders a template (as config.template) with a sample alert and answers what a channel of that type would send: the text, or an e-mail\'s subject and body. Changes nothing; viewers may call it. An invalid template, or one that fails to render, is a 400 with the engine\'s message.',
    body: PreviewTemplateInput, responses: { 200: TemplatePreviewJson },
  },
];

export function channelsRoutes(channels: ChannelsService) {
  const router = crudRoutes({
    ...resource,
    service: channels,
    toJson: (c: Channel) => toChannelJson(c, channels.openSecret),
    deleted: (id) => ({ message: 'notification channel deleted', id }),
  });
  router.post('/preview', async (ctx) => {
    ctx.body = await channels.preview(actorOf(ctx), parseInput(PreviewTemplateInput, ctx.request.body));
  });
  router.post('/:id/test', async (ctx) => {
    const deliveryId = await channels.test(actorOf(ctx), parseInput(ChannelId, ctx.params.id, 'notification channel id'));
    ctx.status = 202;
    ctx.body = { status: 'test notification enqueued', delivery_id: deliveryId };
  });
  return router;
}
