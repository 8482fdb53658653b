// Notification channels as the API answers them (secrets masked), and what each type's config
// holds (control-plane/src/features/notifications/channels.schema.ts).
export type ChannelType = 'chat' | 'webhook' | 'pager' | 'email' | 'sms';

export interface Channel {
  id: string;
  organization_id: string;
  name: string;
  channel_type: ChannelType;
  config: Record<string, unknown>;
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

export const CHANNEL_TYPES: { value: ChannelType; label: string }[] = [
  { value: 'chat', label: 'Chat (Slack, Discord, Teams, Telegram, ntfy…)' },
  { value: 'webhook', label: 'Webhook' },
  { value: 'pager', label: 'Pager (PagerDuty, Opsgenie)' },
  { value: 'email', label: 'Email' },
  { value: 'sms', label: 'SMS' },
];

export const TYPE_NAME: Record<ChannelType, string> = { chat: 'Chat', webhook: 'Webhook', pager: 'Pager', email: 'Email', sms: 'SMS' };
