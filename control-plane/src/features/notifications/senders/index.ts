import type { NotificationSettings } from '../../../config.js';
import type { ChannelType } from '../channels.schema.js';
import { chatSender } from './chat/index.js';
import { emailSender } from './email.js';
import { pagerSender } from './pager/index.js';
import type { Sender } from './sender.js';
import { smsSender } from './sms.js';
import { webhookSender } from './webhook.js';

export function createSenders(settings: NotificationSettings): Record<ChannelType, Sender> {
  return {
    chat: chatSender(settings.publicUrl),
    webhook: webhookSender,
    pager: pagerSender(settings.pagerEventsUrl, settings.publicUrl),
    sms: smsSender(settings.sms),
    email: emailSender(settings),
  };
}
