// Renders channels' templates: at send time for each delivery (never failing it: a template that
// fails, or hits a limit, is logged and the default words go out), and on demand for the
// preview, where a failure is the answer. Storm digests keep their default text: a template
// describes one event.
import type { Clock } from '../../clock.js';
import { validationFailed, type ErrorDetail } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { templateSources, type ChannelTemplate, type PreviewTemplateInput, type TemplatePreviewJson } from './channel-template.schema.js';
import type { NotificationPayload } from './delivery.js';
import { emailContent } from './senders/email.js';
import type { RenderedMessage, SendRequest } from './senders/sender.js';
import { smsText } from './senders/sms.js';
import { TemplateError, type TemplateEngine } from './template-engine.js';
import { samplePayload, templateVariables } from './template-variables.js';

export interface MessageRendererDeps {
  engine: TemplateEngine;
  publicUrl: string;
  clock: Clock;
  logger: Logger;
  organizationName(organizationId: string): Promise<string | null>;
}

const NAME_TTL_MS = 60_000;

export function createMessageRenderer({ engine, publicUrl, clock, logger, organizationName }: MessageRendererDeps) {
  const names = new Map<string, { name: string | null; until: number }>();

  async function organizationOf(id: string | undefined): Promise<{ id: string; name: string } | null> {
    if (!id) return null;
    const now = clock.now().getTime();
    let known = names.get(id);
    if (!known || known.until < now) {
      known = { name: await organizationName(id), until: now + NAME_TTL_MS };
      names.set(id, known);
      if (names.size > 10_000) names.delete(names.keys().next().value!);
    }
    return known.name === null ? null : { id, name: known.name };
  }

  /** Throws TemplateError; a part that renders blank is left out (its default words stay). */
  async function render(template: ChannelTemplate, variables: Record<string, unknown>): Promise<RenderedMessage> {
    const part = async (source: string | undefined) => (source === undefined ? undefined : (await engine.render(source, variables)) || undefined);
    if (typeof template === 'string') return { text: await part(template) };
    return { subject: await part(template.subject), text: await part(template.body) };
  }

  return {
    /** The engine's message for the first part of a template that does not parse, with its config path; null when all parse. */
    syntaxProblem(template: ChannelTemplate): ErrorDetail | null {
      for (const { path, source } of templateSources(template)) {
        const message = engine.check(source);
        if (message) return { path, message };
      }
      return null;
    },

    /** The channel's template rendered for one delivery; undefined without a template, for a digest, or when it fails. */
    async forDelivery(request: SendRequest): Promise<RenderedMessage | undefined> {
      const template = request.config.template as ChannelTemplate | undefined;
      if (template === undefined || request.digest) return undefined;
      try {
        const organization = await organizationOf(request.channel?.organizationId ?? request.payload.alert?.organization_id);
        return await render(template, templateVariables(request.payload, { publicUrl, now: clock.now(), organization }));
      } catch (err) {
        const reason = err instanceof TemplateError ? err.message : String(err);
        logger.warn({ channelId: request.channel?.id, event: request.payload.event, reason }, 'a channel template failed; the default message was sent');
        return undefined;
      }
    },

    /** Renders a template with a sample alert as each channel type would send it; a failure is a 400. */
    async preview(organizationId: string, input: PreviewTemplateInput): Promise<TemplatePreviewJson> {
      const payload: NotificationPayload = samplePayload(input.event, clock.now());
      const variables = templateVariables(payload, { publicUrl, now: clock.now(), organization: await organizationOf(organizationId) });
      let rendered: RenderedMessage | undefined;
      try {
        rendered = input.template === undefined ? undefined : await render(input.template, variables);
      } catch (err) {
        const message = err instanceof TemplateError ? err.message : String(err);
        throw validationFailed(`the template failed to render: ${message}`, [{ path: 'template', message }]);
      }
      const request = { payload, rendered };
      const email = input.channel_type === 'email' ? emailContent(request) : null;
      const text = input.channel_type === 'email' ? null : input.channel_type === 'sms' ? smsText(request) : (rendered?.text ?? payload.text);
      return { channel_type: input.channel_type, event: input.event, text, subject: email?.subject ?? null, body: email?.text.trimEnd() ?? null, variables };
    },
  };
}

export type MessageRenderer = ReturnType<typeof createMessageRenderer>;
