import { z } from 'zod';
import { SECRET_CONFIG_KEYS, maskSecret } from '../../../../shared/src/channel-secrets.js';
import { httpHeaders } from '../../../../shared/src/http-headers.js';
import type { Channel } from './channel.js';
import { readOnly } from '../../http/validate.js';
import { TEMPLATE_DESCRIPTION } from './channel-template.schema.js';
import { CHAT_PROVIDER_CONFIG, GENERIC_CHAT_CONFIG, GENERIC_PAGER_CONFIG, PAGER_PROVIDER_CONFIG } from './channel-providers.schema.js';

const httpUrl = (field: string) =>
  z
    .url({ message: `${field} must be a URL`, protocol: /^https?$/ })
    .max(2048);

export const CHANNEL_CONFIG = {
  // Every shape a chat or pager config can take; providerConfigSchema picks the one to check against.
  chat: z.union([GENERIC_CHAT_CONFIG, ...Object.values(CHAT_PROVIDER_CONFIG)]),
  pager: z.union([GENERIC_PAGER_CONFIG, ...Object.values(PAGER_PROVIDER_CONFIG)]),
  sms: z.strictObject({ to: z.string({ message: 'to must be a string' }).regex(/^\+[1-9]\d{6,14}$/, 'to must be a telephone number in E.164 form, e.g. +15555550100') }),
  email: z.strictObject({ to: z.email({ message: 'to must be an e-mail address' }).max(254) }),
  webhook: z.strictObject({
    url: httpUrl('url'),
    method: z.enum(['POST', 'PUT'], { message: 'method must be POST or PUT' }).optional(),
    headers: z.optional(httpHeaders(4096)),
    secret: z.string().min(1).max(512).optional(),
  }),
} as const;

export type ChannelType = keyof typeof CHANNEL_CONFIG;
export const CHANNEL_TYPES = Object.keys(CHANNEL_CONFIG) as ChannelType[];

const CONFIG_SHAPES =
  'By type: chat {webhook_url} or, with provider, slack/discord/teams/mattermost/google_chat {provider, webhook_url}, telegram {provider, bot_token, chat_id, api_url?}, ' +
  'ntfy {provider, server_url, topic, token?}, gotify {provider, server_url, token}, pushover {provider, token, user, api_url?}; ' +
  'pager {integration_key} or {provider: pagerduty, integration_key} or {provider: opsgenie, api_key, region? (us|eu), api_url?}; sms {to}, email {to}, webhook {url, method?, headers?, secret?}; ' +
  TEMPLATE_DESCRIPTION;
const configInput = z.record(z.string(), z.unknown(), { message: 'config must be an object' }).meta({ description: `${CONFIG_SHAPES}. A masked secret sent back unchanged keeps the stored one (not across a change of provider)` });

const name = z.string({ message: 'name must be a string' }).trim().min(1, 'name must not be empty').max(200);

export const CreateChannelInput = z.strictObject({
  name,
  channel_type: z.enum(CHANNEL_TYPES as [ChannelType, ...ChannelType[]], { message: 'channel_type must be chat, email, webhook, pager or sms' }),
  config: configInput,
  enabled: z.boolean().default(true),
});
export type CreateChannelInput = z.infer<typeof CreateChannelInput>;

export const UpdateChannelInput = z.strictObject({
  ...readOnly('id', 'organization_id', 'channel_type', 'created_at'),
  name: name.optional(),
  config: configInput.optional(),
  enabled: z.boolean().optional(),
});
export type UpdateChannelInput = z.infer<typeof UpdateChannelInput>;

export function toChannelJson(c: Channel, openSecret: (sealed: string) => string) {
  const config: Record<string, unknown> = { ...c.config };
  for (const key of SECRET_CONFIG_KEYS) {
    if (typeof config[key] === 'string') config[key] = maskSecret(openSecret(config[key] as string));
  }
  return {
    id: c.id,
    organization_id: c.organizationId,
    name: c.name,
    channel_type: c.channelType,
    config,
    enabled: c.enabled,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

export const ChannelJson = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    name: z.string(),
    channel_type: z.enum(CHANNEL_TYPES as [ChannelType, ...ChannelType[]]),
    config: z.record(z.string(), z.unknown()).meta({ description: `${CONFIG_SHAPES}. Secrets (${SECRET_CONFIG_KEYS.join(', ')}) show only their last 4 characters` }),
    enabled: z.boolean(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'NotificationChannel' });

export const ChannelDeleted = z.object({ message: z.literal('notification channel deleted'), id: z.uuid() });
export const ChannelTestEnqueued = z.object({ status: z.literal('test notification enqueued'), delivery_id: z.uuid() });
