import { z } from 'zod';
import { PERIODS, type Period } from '../checks/history.schema.js';
import type { BadgeToken } from './badges.service.js';

const LABEL_MAX = 40;

const badgeFields = {
  label: z
    .string({ message: 'label must be a string' })
    .max(LABEL_MAX, `label must be at most ${LABEL_MAX} characters`)
    .optional()
    .meta({ description: 'The text on the left; empty or absent: the badge kind ("status", "uptime", "response time", "certificate")' }),
  token: z.string({ message: 'token must be a string' }).min(1).max(200).optional().meta({ description: "The service's badge token, for a service no public status page lists" }),
};

// Not strict, unlike the rest of the API: README embeds add cache-busting parameters of their own.
export const BadgeQuery = z.object(badgeFields);
export type BadgeQuery = z.infer<typeof BadgeQuery>;

export const UptimeBadgeQuery = z.object({
  ...badgeFields,
  period: z.enum(Object.keys(PERIODS) as [Period, ...Period[]], { message: 'period must be one of 24h, 7d, 30d, 90d' }).default('30d'),
});
export type UptimeBadgeQuery = z.infer<typeof UptimeBadgeQuery>;

export const BadgeTokenJson = z
  .object({
    token: z.string().meta({ description: 'Shown once; a new token replaces it' }),
    badges: z.object({ status: z.url(), uptime: z.url(), response_time: z.url(), certificate: z.url() }).meta({ description: 'The badge URLs with the token' }),
  })
  .meta({ id: 'BadgeToken' });

export function toBadgeTokenJson(t: BadgeToken) {
  return { token: t.token, badges: { status: t.urls.status, uptime: t.urls.uptime, response_time: t.urls['response-time'], certificate: t.urls.certificate } };
}
