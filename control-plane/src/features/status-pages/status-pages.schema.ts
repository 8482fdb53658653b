import { z } from 'zod';
import type { StatusPage } from './status-pages.repository.js';
import { readOnly } from '../../http/validate.js';

const SLUG = /^[a-z0-9](?:[a-z0-9_-]{0,61}[a-z0-9])?$/;

const fields = {
  slug: z
    .string({ message: 'slug must be a string' })
    .trim()
    .toLowerCase()
    .regex(SLUG, 'slug must be 1-63 lowercase letters, digits, hyphens or underscores, starting and ending with a letter or digit'),
  title: z.string({ message: 'title must be a string' }).trim().min(1, 'title must not be empty').max(200),
  description: z.string({ message: 'description must be a string' }).trim().max(2000).nullable(),
  public: z.boolean({ message: 'public must be true or false' }),
  // Shown in this order; repeats are dropped.
  service_ids: z
    .array(z.uuid({ message: 'each service id must be a UUID' }), { message: 'service_ids must be an array of service ids' })
    .max(200, 'a status page shows at most 200 services')
    .transform((ids) => [...new Set(ids)]),
};

export const CreateStatusPageInput = z.strictObject({
  slug: fields.slug,
  title: fields.title,
  description: fields.description.optional(),
  public: fields.public.default(true),
  service_ids: fields.service_ids.default([]),
});
export type CreateStatusPageInput = z.infer<typeof CreateStatusPageInput>;

export const UpdateStatusPageInput = z.strictObject({
  // Read-only fields a client may echo back.
  ...readOnly('id', 'organization_id', 'public_url', 'created_at', 'updated_at'),
  slug: fields.slug.optional(),
  title: fields.title.optional(),
  description: fields.description.optional(),
  public: fields.public.optional(),
  service_ids: fields.service_ids.optional(),
});
export type UpdateStatusPageInput = z.infer<typeof UpdateStatusPageInput>;

export const SlugParam = z.string().min(1).max(63);

export function toStatusPageJson(p: StatusPage) {
  return {
    id: p.id,
    organization_id: p.organizationId,
    slug: p.slug,
    title: p.title,
    description: p.description,
    public: p.public,
    service_ids: p.serviceIds,
    public_url: `/api/v1/status-pages/${p.slug}/public`,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

const serviceStatus = z.enum(['GREEN', 'YELLOW', 'RED']);

export const StatusPageJson = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    slug: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    public: z.boolean(),
    service_ids: z.array(z.uuid()),
    public_url: z.string(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'StatusPage' });

export const PublicStatusPageJson = z
  .object({
    slug: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    overall_status: serviceStatus.nullable(),
    overall_message: z.string().meta({ description: 'The overall status in words, e.g. "All systems operational"; says so when services are affected by a RED dependency' }),
    generated_at: z.iso.datetime(),
    services: z.array(
      z.object({
        id: z.uuid(),
        name: z.string(),
        status: serviceStatus.nullable(),
        last_checked_at: z.iso.datetime().nullable(),
        uptime_percentage: z.number().nullable(),
        uptime_bars: z.array(z.object({ date: z.iso.date(), total_checks: z.int(), successful_checks: z.int(), uptime_percentage: z.number().nullable() })),
        affected: z.boolean().meta({ description: 'A service it depends on is RED now' }),
        affected_by: z
          .array(z.object({ id: z.uuid(), name: z.string() }))
          .meta({ description: 'The RED services it depends on that this page lists (shown "Affected by …"); a dependency the page does not list is not named' }),
      }),
    ),
    incidents: z.array(
      z.object({
        id: z.uuid(),
        service_id: z.uuid(),
        service_name: z.string(),
        title: z.string(),
        severity: z.string(),
        status: z.string(),
        started_at: z.iso.datetime(),
        acknowledged_at: z.iso.datetime().nullable(),
      }),
    ),
  })
  .meta({ id: 'PublicStatusPage' });
