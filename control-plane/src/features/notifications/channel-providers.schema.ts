// The services a chat or pager channel can speak to natively (config.provider), and the
// config keys of each. No provider: the type's original shape (chat {"text"}, pager
// PagerDuty events v2), so that channels made before providers existed keep working.
import { z } from 'zod';

export const CHAT_PROVIDERS = ['slack', 'discord', 'teams', 'telegram', 'mattermost', 'google_chat', 'ntfy', 'gotify', 'pushover'] as const;
export type ChatProvider = (typeof CHAT_PROVIDERS)[number];
export const PAGER_PROVIDERS = ['pagerduty', 'opsgenie'] as const;
export type PagerProvider = (typeof PAGER_PROVIDERS)[number];

/** A missing key names every key the provider needs, e.g. "telegram needs bot_token and chat_id". */
const needs = (provider: string, required: string[], field: string, what: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `${provider} needs ${required.join(' and ')}` : `${field} must be ${what}`;

const url = (provider: string, required: string[], field: string) =>
  z.url({ error: needs(provider, required, field, 'an http(s) URL'), protocol: /^https?$/ }).max(2048);

const text = (provider: string, required: string[], field: string, max = 256) =>
  z.string({ error: needs(provider, required, field, 'a string') }).trim().min(1, `${field} must not be empty`).max(max);

const optionalUrl = (field: string) => z.url({ message: `${field} must be an http(s) URL`, protocol: /^https?$/ }).max(2048).optional();

const webhookProvider = <P extends string>(provider: P) =>
  z.strictObject({ provider: z.literal(provider), webhook_url: url(provider, ['webhook_url'], 'webhook_url') });

const chatProvider = <P extends string, S extends z.ZodRawShape>(provider: P, shape: S) => z.strictObject({ provider: z.literal(provider), ...shape });

export const GENERIC_CHAT_CONFIG = z.strictObject({ webhook_url: url('chat', ['webhook_url'], 'webhook_url') });

export const CHAT_PROVIDER_CONFIG = {
  slack: webhookProvider('slack'),
  discord: webhookProvider('discord'),
  teams: webhookProvider('teams'),
  mattermost: webhookProvider('mattermost'),
  google_chat: webhookProvider('google_chat'),
  telegram: chatProvider('telegram', {
    bot_token: text('telegram', ['bot_token', 'chat_id'], 'bot_token').regex(/^\d+:[A-Za-z0-9_-]+$/, 'bot_token must look like 123456:ABC-DEF… (from @BotFather)'),
    // A numeric id (negative for groups) or @channelusername; numbers are kept as text.
    chat_id: z
      .union([z.string().trim().regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,63})$/, 'chat_id must be a numeric chat id or @channelusername'), z.number().int().transform(String)], {
        error: needs('telegram', ['bot_token', 'chat_id'], 'chat_id', 'a numeric chat id or @channelusername'),
      }),
    api_url: optionalUrl('api_url'),
  }),
  ntfy: chatProvider('ntfy', {
    server_url: url('ntfy', ['server_url', 'topic'], 'server_url'),
    topic: text('ntfy', ['server_url', 'topic'], 'topic', 64).regex(/^[-_A-Za-z0-9]+$/, 'topic must be letters, digits, - and _'),
    token: z.string({ message: 'token must be a string' }).trim().min(1, 'token must not be empty').max(256).optional(),
  }),
  gotify: chatProvider('gotify', {
    server_url: url('gotify', ['server_url', 'token'], 'server_url'),
    token: text('gotify', ['server_url', 'token'], 'token'),
  }),
  pushover: chatProvider('pushover', {
    token: text('pushover', ['token', 'user'], 'token', 64),
    user: text('pushover', ['token', 'user'], 'user', 64),
    api_url: optionalUrl('api_url'),
  }),
} satisfies Record<ChatProvider, z.ZodType>;

const integrationKey = (provider: string) => text(provider, ['integration_key'], 'integration_key');

export const GENERIC_PAGER_CONFIG = z.strictObject({ integration_key: integrationKey('pager') });

export const PAGER_PROVIDER_CONFIG = {
  pagerduty: z.strictObject({ provider: z.literal('pagerduty'), integration_key: integrationKey('pagerduty') }),
  opsgenie: z.strictObject({
    provider: z.literal('opsgenie'),
    api_key: text('opsgenie', ['api_key'], 'api_key'),
    // Where the account lives; api_url (a proxy, or a test receiver) wins over it.
    region: z.enum(['us', 'eu'], { message: 'region must be us or eu' }).optional(),
    api_url: optionalUrl('api_url'),
  }),
} satisfies Record<PagerProvider, z.ZodType>;

type Schema = z.ZodType<Record<string, unknown>>;

/** The schema a config must match, chosen by its provider; a string naming the problem if the provider is unknown. */
export function providerConfigSchema(type: 'chat' | 'pager', config: Record<string, unknown>): Schema | string {
  const [generic, providers, names]: [Schema, Record<string, Schema>, readonly string[]] =
    type === 'chat' ? [GENERIC_CHAT_CONFIG, CHAT_PROVIDER_CONFIG, CHAT_PROVIDERS] : [GENERIC_PAGER_CONFIG, PAGER_PROVIDER_CONFIG, PAGER_PROVIDERS];
  if (config.provider === undefined) return generic;
  const schema = typeof config.provider === 'string' && Object.hasOwn(providers, config.provider) ? providers[config.provider] : undefined;
  return schema ?? `provider must be one of ${names.join(', ')} (or absent)`;
}
