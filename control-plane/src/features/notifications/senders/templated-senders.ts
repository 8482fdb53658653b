// Renders the channel's template (config.template) before each sender runs, around the senders
// as observed-senders.ts is, so that a sender only chooses between the rendered words and its
// default ones.
import type { ChannelType } from '../channels.schema.js';
import type { MessageRenderer } from '../message-renderer.js';
import type { Sender } from './sender.js';

export function templatedSenders(senders: Record<ChannelType, Sender>, messages: Pick<MessageRenderer, 'forDelivery'>): Record<ChannelType, Sender> {
  const templated = (send: Sender): Sender => async (request) => send({ ...request, rendered: await messages.forDelivery(request) });
  return Object.fromEntries(Object.entries(senders).map(([type, send]) => [type, templated(send)])) as Record<ChannelType, Sender>;
}
