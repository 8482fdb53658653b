// Notification channels (SPEC.md 2.4, API.md): validated config per type, secrets sealed at
// rest, and a test message that goes through the outbox like any other.
import { randomUUID } from 'node:crypto';
import type { NotificationSettings } from '../../config.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Tx } from '../../db/tx.js';
import { notFound, validationFailed } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { Channel } from './channel.js';
import { SECRET_CONFIG_KEYS, maskSecret } from '../../../../shared/src/channel-secrets.js';
import { providerConfigSchema } from './channel-providers.schema.js';
import { CHANNEL_CONFIG, type ChannelType, type CreateChannelInput, type UpdateChannelInput } from './channels.schema.js';
import type { ChannelsRepository } from './channels.repository.js';
import type { NotificationPlanner } from './notification-planner.js';
import { emailNotConfigured } from './senders/email.js';
import { templateShapeProblem, type ChannelTemplate, type PreviewTemplateInput, type TemplatePreviewJson } from './channel-template.schema.js';
import type { MessageRenderer } from './message-renderer.js';

export interface ChannelsServiceDeps {
  channels: ChannelsRepository;
  access: OrganizationAccess;
  secrets: SecretBox;
  planner: NotificationPlanner;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  wakeDispatcher: () => void;
  settings: NotificationSettings;
  messages: MessageRenderer;
}

export function createChannelsService(deps: ChannelsServiceDeps) {
  const { channels, access, secrets } = deps;

  // A secret no key opens any more reads as empty (fully masked) rather than failing the request.
  const openSecret = (sealed: string): string => {
    if (!secrets.isSealed(sealed)) return sealed;
    try {
      return secrets.open(sealed);
    } catch {
      return '';
    }
  };

  /**
   * Validates config for its type (and provider) and seals its secrets; a masked secret sent back
   * keeps the stored one, unless the provider changed (another service's secret is no use).
   */
  function prepareConfig(type: ChannelType, raw: Record<string, unknown>, previous: Record<string, unknown> = {}): Record<string, unknown> {
    // The template is checked apart (shape, then the engine's parse): every type's keys but pager's may add it.
    const { template, ...candidate } = raw;
    if (template !== undefined) {
      const problem = templateShapeProblem(type, template) ?? deps.messages.syntaxProblem(template as ChannelTemplate);
      if (problem) throw validationFailed(`invalid config for a ${type} channel: ${problem.path}: ${problem.message}`, [problem]);
    }
    const schema = type === 'chat' || type === 'pager' ? providerConfigSchema(type, candidate) : CHANNEL_CONFIG[type];
    if (typeof schema === 'string') throw validationFailed(`invalid config for a ${type} channel: config.provider: ${schema}`, [{ path: 'config.provider', message: schema }]);
    for (const key of SECRET_CONFIG_KEYS) {
      const kept = previous[key];
      if (typeof candidate[key] !== 'string' || typeof kept !== 'string' || candidate[key] !== maskSecret(openSecret(kept))) continue;
      if (providerOf(type, candidate) !== providerOf(type, previous)) {
        throw validationFailed(`invalid config for a ${type} channel: config.${key}: give the new provider's ${key}; the masked one belongs to the old provider`, [{ path: `config.${key}`, message: `give the new provider's ${key}` }]);
      }
      candidate[key] = openSecret(kept);
    }
    const parsed = schema.safeParse(candidate);
    if (!parsed.success) {
      const kind = schema !== CHANNEL_CONFIG[type] && typeof candidate.provider === 'string' ? `${candidate.provider} ${type}` : type;
      const details = parsed.error.issues.map((i) => ({
        path: ['config', ...i.path.map(String)].join('.'),
        message: i.code === 'unrecognized_keys' ? `${i.keys.join(', ')} not a config key of a ${kind} channel` : i.message,
      }));
      throw validationFailed(`invalid config for a ${kind} channel: ${details[0]?.path}: ${details[0]?.message}`, details);
    }
    const sealed: Record<string, unknown> = { ...parsed.data, ...(template !== undefined ? { template } : {}) };
    for (const key of SECRET_CONFIG_KEYS) if (typeof sealed[key] === 'string') sealed[key] = secrets.seal(sealed[key] as string);
    return sealed;
  }

  async function findIn(organizationId: string, id: string): Promise<Channel> {
    const channel = await channels.find(organizationId, id);
    if (!channel) throw notFound('notification channel');
    return channel;
  }

  return {
    async create(actor: Actor, input: CreateChannelInput): Promise<Channel> {
      const organizationId = await access.resolveWritable(actor);
      const config = prepareConfig(input.channel_type, input.config);
      return channels.insert({ id: randomUUID(), organizationId, name: input.name, channelType: input.channel_type, config, enabled: input.enabled });
    },
    async list(actor: Actor): Promise<Channel[]> {
      return channels.list(await access.resolveReadable(actor));
    },
    async get(actor: Actor, id: string): Promise<Channel> {
      return findIn(await access.resolveReadable(actor), id);
    },
    async update(actor: Actor, id: string, input: UpdateChannelInput): Promise<Channel> {
      const current = await findIn(await access.resolveWritable(actor), id);
      const config = input.config ? prepareConfig(current.channelType, input.config, current.config) : undefined;
      return channels.update(id, { name: input.name, config, enabled: input.enabled });
    },
    async remove(actor: Actor, id: string): Promise<void> {
      await findIn(await access.resolveWritable(actor), id);
      await channels.delete(id);
    },
    /** Queues a test message; answers the delivery id. */
    async test(actor: Actor, id: string): Promise<string> {
      const channel = await findIn(await access.resolveWritable(actor), id);
      if (channel.channelType === 'email' && !deps.settings.smtp) throw validationFailed(emailNotConfigured(deps.settings));
      if (channel.channelType === 'sms' && !deps.settings.sms) throw validationFailed('SMS delivery is not configured: set SMS_GATEWAY_URL (and SMS_GATEWAY_USER, SMS_GATEWAY_PASSWORD, SMS_FROM as needed)');
      const deliveryId = await deps.transaction((tx) => deps.planner.enqueueTest(tx, channel));
      deps.wakeDispatcher();
      return deliveryId;
    },
    /** Renders a template with a sample alert; anyone who reads channels may (it changes nothing). */
    async preview(actor: Actor, input: PreviewTemplateInput): Promise<TemplatePreviewJson> {
      const organizationId = await access.resolveReadable(actor);
      if (input.template !== undefined) {
        const problem = templateShapeProblem(input.channel_type, input.template) ?? deps.messages.syntaxProblem(input.template);
        if (problem) {
          const path = problem.path.replace(/^config\./, '');
          throw validationFailed(`invalid template: ${path}: ${problem.message}`, [{ path, message: problem.message }]);
        }
      }
      return deps.messages.preview(organizationId, input);
    },
    openSecret,
  };
}

/** A pager without a provider is PagerDuty, so that naming it changes nothing. */
function providerOf(type: ChannelType, config: Record<string, unknown>): unknown {
  return config.provider ?? (type === 'pager' ? 'pagerduty' : undefined);
}

export type ChannelsService = ReturnType<typeof createChannelsService>;
