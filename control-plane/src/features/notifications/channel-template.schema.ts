// A channel's message template (config.template) and the preview of one. The template is Liquid
// (template-engine.ts): a string is the message text (chat text, SMS text, the webhook's
// `text`, the e-mail body); e-mail also takes {subject, body}, each optional. Pager incidents
// keep their fixed shape and take none.
import { z } from 'zod';
import { MAX_TEMPLATE_LENGTH, TEMPLATE_CHANNEL_TYPES, type ChannelTemplate, type TemplatePreview } from '../../../../shared/src/channel-templates.js';
import type { ErrorDetail } from '../../errors.js';
import type { NotificationEvent } from './delivery.js';

export type { ChannelTemplate };

export const TEMPLATE_DESCRIPTION =
  'template? (chat, sms, email, webhook): a Liquid template of the message text (chat text, SMS text, the webhook body\'s "text", the e-mail body); ' +
  'email also takes {subject?, body?}. Variables: event, text, alert, service, location, locations, links, organization (README "Message templates")';

const TAKES_TEMPLATE = new Set<string>(TEMPLATE_CHANNEL_TYPES);

/** The sources of a template, by their config path: one for a string, up to two for an e-mail's {subject, body}. */
export function templateSources(template: ChannelTemplate): { path: string; source: string }[] {
  if (typeof template === 'string') return [{ path: 'config.template', source: template }];
  return (['subject', 'body'] as const).flatMap((key) => (template[key] === undefined ? [] : [{ path: `config.template.${key}`, source: template[key]! }]));
}

/** Checks the shape of a template for a channel type (not its syntax); answers the first problem. */
export function templateShapeProblem(type: string, value: unknown): ErrorDetail | null {
  const at = (path: string, message: string) => ({ path, message });
  if (!TAKES_TEMPLATE.has(type)) return at('config.template', `a ${type} channel takes no template: its messages keep their fixed shape`);
  const sourceProblem = (path: string, source: unknown) => {
    if (typeof source !== 'string') return at(path, `${path.slice('config.'.length)} must be a string`);
    if (source.trim() === '') return at(path, `${path.slice('config.'.length)} must not be empty`);
    if (source.length > MAX_TEMPLATE_LENGTH) return at(path, `${path.slice('config.'.length)} must be at most ${MAX_TEMPLATE_LENGTH} characters`);
    return null;
  };
  if (typeof value === 'string' || type !== 'email') return sourceProblem('config.template', value);
  if (!value || typeof value !== 'object' || Array.isArray(value)) return at('config.template', 'template must be a string, or for e-mail {subject, body}');
  const keys = Object.keys(value);
  const unknown = keys.filter((k) => k !== 'subject' && k !== 'body');
  if (unknown.length) return at('config.template', `${unknown.join(', ')} not a key of an e-mail template (subject, body)`);
  if (keys.length === 0) return at('config.template', 'an e-mail template needs a subject, a body or both');
  for (const key of keys) {
    const problem = sourceProblem(`config.template.${key}`, (value as Record<string, unknown>)[key]);
    if (problem) return problem;
  }
  return null;
}

/** What each event is, for the preview's choice of event. */
export const PREVIEW_EVENTS: Record<NotificationEvent, string> = {
  alert_fired: 'an alert opens',
  alert_acknowledged: 'someone acknowledges it',
  alert_resolved: 'it resolves',
  alert_reminder: 'it is still firing, unacknowledged (a reminder)',
  alert_flapping: 'its service keeps changing status',
  test: 'a test message (Send test)',
};
const EVENTS = Object.keys(PREVIEW_EVENTS) as [NotificationEvent, ...NotificationEvent[]];

const templateSource = z.string().max(MAX_TEMPLATE_LENGTH);

export const PreviewTemplateInput = z.strictObject({
  channel_type: z.enum(TEMPLATE_CHANNEL_TYPES, { message: 'channel_type must be chat, email, webhook or sms (pager channels take no template)' }),
  template: z
    .union([templateSource, z.strictObject({ subject: templateSource.optional(), body: templateSource.optional() })], { error: 'template must be a string, or for e-mail {subject, body}' })
    .optional()
    .meta({ description: 'The template to render (as config.template); left out, the preview shows the default message' }),
  event: z.enum(EVENTS, { message: `event must be one of ${EVENTS.join(', ')}` }).default('alert_fired'),
});
export type PreviewTemplateInput = z.infer<typeof PreviewTemplateInput>;

export const TemplatePreviewJson: z.ZodType<TemplatePreview> = z
  .object({
    channel_type: z.string(),
    event: z.string(),
    text: z.string().nullable().meta({ description: 'chat: the message text; sms: the text as sent (one segment); webhook: the body\'s "text"; null for email' }),
    subject: z.string().nullable().meta({ description: 'email: the subject line; null for other types' }),
    body: z.string().nullable().meta({ description: 'email: the plain-text body; null for other types' }),
    variables: z.record(z.string(), z.unknown()).meta({ description: 'The sample variables the template was rendered with' }),
  })
  .meta({ id: 'NotificationTemplatePreview' });
export type TemplatePreviewJson = TemplatePreview;
