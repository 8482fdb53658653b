// Pager channels: PagerDuty (no provider, or "pagerduty") or Opsgenie.
import type { PagerProvider } from '../../channel-providers.schema.js';
import type { Sender } from '../sender.js';
import { opsgenieSender } from './opsgenie.js';
import { pagerDutySender } from './pagerduty.js';

export function pagerSender(eventsUrl: string, publicUrl: string): Sender {
  const providers: Record<PagerProvider, Sender> = { pagerduty: pagerDutySender(eventsUrl, publicUrl), opsgenie: opsgenieSender(publicUrl) };
  return (request) => providers[(request.config.provider as PagerProvider | undefined) ?? 'pagerduty'](request);
}
