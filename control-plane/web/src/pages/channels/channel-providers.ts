// The services a chat or pager channel can post to natively (config.provider), and the config
// fields each takes (control-plane/src/features/notifications/channel-providers.schema.ts).
export interface ProviderField {
  key: string;
  label: string;
  hint?: string;
  optional?: boolean;
  /** Shown masked by the API; sending the mask back keeps the stored value. */
  secret?: boolean;
  type?: 'url' | 'text';
  options?: { value: string; label: string }[];
}

export interface Provider {
  /** '' for no provider: the type's original format. */
  value: string;
  label: string;
  fields: ProviderField[];
}

const KEEP = ' Leave the masked value to keep the stored one.';
const webhookUrl = (hint: string): ProviderField => ({ key: 'webhook_url', label: 'Webhook URL', type: 'url', hint });
const apiUrl: ProviderField = { key: 'api_url', label: 'API URL', type: 'url', optional: true, hint: 'Optional: a proxy or self-hosted gateway instead of the public API.' };

export const CHAT_PROVIDERS: Provider[] = [
  { value: '', label: 'Generic incoming webhook', fields: [webhookUrl('Messages are posted as {"text": ...}.')] },
  { value: 'slack', label: 'Slack', fields: [webhookUrl('A Slack incoming-webhook URL.')] },
  { value: 'discord', label: 'Discord', fields: [webhookUrl('The channel webhook URL (Server settings → Integrations).')] },
  { value: 'teams', label: 'Microsoft Teams', fields: [webhookUrl('A Workflows "post to a channel when a webhook request is received" URL.')] },
  { value: 'mattermost', label: 'Mattermost', fields: [webhookUrl('A Mattermost incoming-webhook URL.')] },
  { value: 'google_chat', label: 'Google Chat', fields: [webhookUrl('The space webhook URL.')] },
  {
    value: 'telegram',
    label: 'Telegram',
    fields: [
      { key: 'bot_token', label: 'Bot token', secret: true, hint: `From @BotFather.${KEEP}` },
      { key: 'chat_id', label: 'Chat ID', hint: 'A numeric chat id (negative for groups) or @channelusername.' },
      apiUrl,
    ],
  },
  {
    value: 'ntfy',
    label: 'ntfy',
    fields: [
      { key: 'server_url', label: 'Server URL', type: 'url', hint: 'e.g. https://ntfy.sh' },
      { key: 'topic', label: 'Topic' },
      { key: 'token', label: 'Access token', secret: true, optional: true, hint: `Optional, for protected topics.${KEEP}` },
    ],
  },
  {
    value: 'gotify',
    label: 'Gotify',
    fields: [
      { key: 'server_url', label: 'Server URL', type: 'url' },
      { key: 'token', label: 'Application token', secret: true, hint: `The token of a Gotify application.${KEEP}` },
    ],
  },
  {
    value: 'pushover',
    label: 'Pushover',
    fields: [
      { key: 'token', label: 'Application token', secret: true, hint: KEEP.trim() },
      { key: 'user', label: 'User key', secret: true, hint: `A user or group key.${KEEP}` },
      apiUrl,
    ],
  },
];

const integrationKey: ProviderField = { key: 'integration_key', label: 'Integration key', secret: true, hint: `The routing key of the PagerDuty service (Events API v2).${KEEP}` };

export const PAGER_PROVIDERS: Provider[] = [
  { value: '', label: 'PagerDuty', fields: [integrationKey] },
  {
    value: 'opsgenie',
    label: 'Opsgenie',
    fields: [
      { key: 'api_key', label: 'API key', secret: true, hint: `An API integration key.${KEEP}` },
      { key: 'region', label: 'Region', optional: true, options: [{ value: '', label: 'US (default)' }, { value: 'us', label: 'US' }, { value: 'eu', label: 'EU' }] },
      { ...apiUrl, hint: 'Optional: instead of the region, e.g. a proxy.' },
    ],
  },
];

export const PROVIDER_NAME: Record<string, string> = Object.fromEntries(
  [...CHAT_PROVIDERS, ...PAGER_PROVIDERS].filter((p) => p.value).map((p) => [p.value, p.label]),
);

export function providersOf(type: string): Provider[] | undefined {
  return type === 'chat' ? CHAT_PROVIDERS : type === 'pager' ? PAGER_PROVIDERS : undefined;
}
