// Reports every delivery attempt, by channel type and outcome, to an observer (the metrics),
// around the senders rather than inside the dispatcher's scheduling.
import type { ChannelType } from '../channels.schema.js';
import type { Sender } from './sender.js';

export interface DeliveryObserver {
  deliveryAttempted(channelType: ChannelType, ok: boolean): void;
}

export function observedSenders(senders: Record<ChannelType, Sender>, observer: DeliveryObserver): Record<ChannelType, Sender> {
  const observed = (type: ChannelType, send: Sender): Sender => async (request) => {
    try {
      const outcome = await send(request);
      observer.deliveryAttempted(type, true);
      return outcome;
    } catch (err) {
      observer.deliveryAttempted(type, false);
      throw err;
    }
  };
  return Object.fromEntries(Object.entries(senders).map(([type, send]) => [type, observed(type as ChannelType, send)])) as Record<ChannelType, Sender>;
}
