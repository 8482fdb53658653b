// The subscribers' requests and answers: the public subscribe body, the token of mail links,
// and the subscriber list admins read.
import { z } from 'zod';
import { idParam } from '../../http/openapi/api-operation.js';
import type { Subscriber } from './subscribers.repository.js';

const webhookUrl = z
  .string({ message: 'webhook_url must be a string' })
  .trim()
  .max(2048, 'webhook_url must be at most 2048 characters')
  .transform((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'webhook_url must be an http or https URL' });
      return z.NEVER;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'webhook_url must be an http or https URL' });
    else if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'webhook_url must not carry a user name or password' });
    return url.href;
  });

export const SubscribeInput = z
  .strictObject({
    email: z
      .string({ message: 'email must be a string' })
      .trim()
      .max(254, 'email must be at most 254 characters')
      .pipe(z.email({ message: 'email must be an e-mail address' }))
      .optional(),
    webhook_url: webhookUrl.optional().meta({ description: 'Receives a JSON POST per notice; must resolve to public addresses unless the server allows private ones' }),
    component_ids: z
      .array(z.uuid({ message: 'each component id must be a UUID' }), { message: 'component_ids must be an array of service ids' })
      .max(200)
      .transform((ids) => [...new Set(ids)])
      .default([])
      .meta({ description: "Services of the page to hear about; empty: the whole page" }),
  })
  .refine((s) => (s.email === undefined) !== (s.webhook_url === undefined), { message: 'give either email or webhook_url', path: ['email'] });
export type SubscribeInput = z.infer<typeof SubscribeInput>;

export const SubscribeAnswer = z.object({ message: z.string() }).meta({ id: 'SubscribeAnswer' });

export const LinkQuery = z.strictObject({ token: z.string().max(200).meta({ description: 'The token of the link in the mail' }) });

export const SubscriberIdParam = idParam('subscriber');

export const SubscriberJson = z
  .object({
    id: z.uuid(),
    email: z.string().nullable(),
    webhook_url: z.string().nullable(),
    component_ids: z.array(z.uuid()).meta({ description: 'Empty: every component of the page' }),
    confirmed: z.boolean().meta({ description: 'E-mail subscribers are confirmed by the link in their confirmation mail; webhooks at once' }),
    confirmed_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'StatusPageSubscriber' });

export function toSubscriberJson(s: Subscriber) {
  return {
    id: s.id,
    email: s.email,
    webhook_url: s.webhookUrl,
    component_ids: s.componentIds,
    confirmed: s.confirmedAt !== null,
    confirmed_at: s.confirmedAt?.toISOString() ?? null,
    created_at: s.createdAt.toISOString(),
  };
}
