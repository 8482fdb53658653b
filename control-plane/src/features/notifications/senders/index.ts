import type { NotificationSettings } from '../../../config.js';
import type { ChannelType } from '../channels.schema.js';
import { chatSender } from './chat.js';
import { emailSender } from './email.js';
import { pagerSender } from './pager.js';
import type { Sender } from './sender.js';
import { smsSender } from './sms.js';
import { webhookSender } from './webhook.js';

export function createSenders(settings: NotificationSettings): Record<ChannelType, Sender> {
  return {
    chat: chatSender,
    webhook: webhookSender,
    pager: pagerSender(settings.pagerEventsUrl),
    sms: smsSender(settings.sms),
    email: emailSender(settings),
  };
}
