import { z } from 'zod';
import { normalRange, notARange, PAGE_ACCESS, PAGE_DOMAIN, PAGE_DOMAIN_MAX_LENGTH, PAGE_SLUG } from '../../../../shared/src/status-page-fields.js';
import type { StatusPage } from './status-pages.repository.js';
import { readOnly } from '../../http/validate.js';

/** An address or CIDR range, kept in its normal form. */
const cidr = z.string({ message: 'each allowlist entry must be a string' }).transform((value, ctx) => {
  const range = normalRange(value);
  if (range === null) ctx.addIssue({ code: 'custom', message: notARange(value) });
  return range ?? z.NEVER;
});

const fields = {
  slug: z
    .string({ message: 'slug must be a string' })
    .trim()
    .toLowerCase()
    .regex(PAGE_SLUG, 'slug must be 1-63 lowercase letters, digits, hyphens or underscores, starting and ending with a letter or digit'),
  title: z.string({ message: 'title must be a string' }).trim().min(1, 'title must not be empty').max(200),
  description: z.string({ message: 'description must be a string' }).trim().max(2000).nullable(),
  public: z.boolean({ message: 'public must be true or false' }).meta({ description: 'Shorthand for access: true is public, false is members' }),
  access: z.enum(PAGE_ACCESS, { message: `access must be one of ${PAGE_ACCESS.join(', ')}` }).meta({
    description: 'Who may see the page: anyone; anyone with the password; signed-in members of the organization; or clients from ip_allowlist',
  }),
  password: z
    .string({ message: 'password must be a string' })
    .min(8, 'password must be at least 8 characters')
    .max(200, 'password must be at most 200 characters')
    .meta({ description: 'Write-only: the password of a page whose access is password (stored argon2-hashed)', writeOnly: true }),
  ip_allowlist: z
    .array(cidr, { message: 'ip_allowlist must be an array of addresses or CIDR ranges' })
    .max(100, 'ip_allowlist holds at most 100 ranges')
    .meta({ description: 'IPv4 and IPv6 addresses or CIDR ranges whose clients see a page whose access is ip_allowlist (the client address honours TRUSTED_PROXIES)' }),
  custom_domain: z
    .string({ message: 'custom_domain must be a host name' })
    .trim()
    .toLowerCase()
    .max(PAGE_DOMAIN_MAX_LENGTH, `custom_domain must be at most ${PAGE_DOMAIN_MAX_LENGTH} characters`)
    .regex(PAGE_DOMAIN, 'custom_domain must be a host name such as status.example.com')
    .nullable()
    .meta({ description: 'A request whose Host is this name gets the page at /' }),
  auto_incidents: z.boolean({ message: 'auto_incidents must be true or false' }).meta({ description: 'Show the open alerts of listed services as incidents' }),
  groups: z
    .array(
      z.strictObject({
        name: z.string({ message: 'a group name must be a string' }).trim().min(1, 'a group name must not be empty').max(200),
        service_ids: z.array(z.uuid({ message: 'each service id must be a UUID' })).max(200).transform((ids) => [...new Set(ids)]),
      }),
      { message: 'groups must be an array of {name, service_ids}' },
    )
    .max(50, 'a status page has at most 50 groups')
    .meta({ description: 'Components: services shown together under a name, with the worst status of their services; a grouped service is listed on the page' }),
  // Shown in this order; repeats are dropped.
  service_ids: z
    .array(z.uuid({ message: 'each service id must be a UUID' }), { message: 'service_ids must be an array of service ids' })
    .max(200, 'a status page shows at most 200 services')
    .transform((ids) => [...new Set(ids)]),
};

const noUnknownGroups = {
  check: (p: { groups?: { service_ids: string[] }[] }) => (p.groups ?? []).flatMap((g) => g.service_ids).length === new Set((p.groups ?? []).flatMap((g) => g.service_ids)).size,
  message: { message: 'a service belongs to one group at most', path: ['groups'] },
};

const settings = {
  public: fields.public.optional(),
  access: fields.access.optional(),
  password: fields.password.optional(),
  ip_allowlist: fields.ip_allowlist.optional(),
  custom_domain: fields.custom_domain.optional(),
  auto_incidents: fields.auto_incidents.optional(),
  groups: fields.groups.optional(),
};

export const CreateStatusPageInput = z
  .strictObject({
    slug: fields.slug,
    title: fields.title,
    description: fields.description.optional(),
    ...settings,
    service_ids: fields.service_ids.default([]),
  })
  .refine(noUnknownGroups.check, noUnknownGroups.message);
export type CreateStatusPageInput = z.infer<typeof CreateStatusPageInput>;

export const UpdateStatusPageInput = z
  // Read-only fields a client may echo back.
  .strictObject({
    ...readOnly('id', 'organization_id', 'public_url', 'page_url', 'password_set', 'created_at', 'updated_at'),
    slug: fields.slug.optional(),
    title: fields.title.optional(),
    description: fields.description.optional(),
    ...settings,
    service_ids: fields.service_ids.optional(),
  })
  .refine(noUnknownGroups.check, noUnknownGroups.message);
export type UpdateStatusPageInput = z.infer<typeof UpdateStatusPageInput>;

export const SlugParam = z.string().min(1).max(63);

export function toStatusPageJson(p: StatusPage) {
  return {
    id: p.id,
    organization_id: p.organizationId,
    slug: p.slug,
    title: p.title,
    description: p.description,
    public: p.access === 'public',
    access: p.access,
    password_set: p.passwordHash !== null,
    ip_allowlist: p.ipAllowlist,
    custom_domain: p.customDomain,
    auto_incidents: p.autoIncidents,
    groups: p.groups.map((g) => ({ name: g.name, service_ids: g.serviceIds })),
    service_ids: p.serviceIds,
    public_url: `/api/v1/status-pages/${p.slug}/public`,
    page_url: `/status/${p.slug}`,
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
    public: z.boolean().meta({ description: 'Whether access is public' }),
    access: z.enum(PAGE_ACCESS),
    password_set: z.boolean().meta({ description: 'Whether the page has a password (the password itself is never shown)' }),
    ip_allowlist: z.array(z.string()),
    custom_domain: z.string().nullable(),
    auto_incidents: z.boolean(),
    groups: z.array(z.object({ name: z.string(), service_ids: z.array(z.uuid()) })),
    service_ids: z.array(z.uuid()).meta({ description: 'Every service the page shows, grouped ones included, in page order' }),
    public_url: z.string(),
    page_url: z.string().meta({ description: 'The page in a browser, on the dashboard\'s origin' }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'StatusPage' });

const incidentStatus = z.enum(['investigating', 'identified', 'monitoring', 'resolved']);
const incidentImpact = z.enum(['none', 'minor', 'major', 'critical']);

const WrittenIncident = z
  .object({
    id: z.uuid(),
    source: z.literal('written').meta({ description: 'Written by the team (incidents API)' }),
    title: z.string(),
    status: incidentStatus,
    impact: incidentImpact,
    started_at: z.iso.datetime(),
    resolved_at: z.iso.datetime().nullable(),
    affected: z.array(z.object({ service_id: z.uuid(), service_name: z.string(), impact: incidentImpact })).meta({ description: 'The affected services this page lists' }),
    updates: z.array(z.object({ id: z.uuid(), status: incidentStatus, message: z.string(), created_at: z.iso.datetime() })).meta({ description: 'The timeline, oldest first' }),
  })
  .meta({ id: 'PublicWrittenIncident' });

const AlertIncident = z
  .object({
    id: z.uuid(),
    source: z.literal('alert').meta({ description: "An open alert of a listed service, shown while the page's auto_incidents is on" }),
    service_id: z.uuid(),
    service_name: z.string(),
    title: z.string(),
    severity: z.string(),
    status: z.string(),
    started_at: z.iso.datetime(),
    acknowledged_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'PublicAlertIncident' });

const PublicMaintenance = z
  .object({
    id: z.uuid().meta({ description: 'The maintenance window' }),
    name: z.string(),
    status: z.enum(['upcoming', 'in_progress', 'completed']),
    starts_at: z.iso.datetime(),
    ends_at: z.iso.datetime(),
    service_ids: z.array(z.uuid()).meta({ description: 'The services of this page it covers' }),
  })
  .meta({ id: 'PublicMaintenance' });

export const PublicHistoryQuery = z.strictObject({
  before: z.iso.datetime({ offset: true, message: 'before must be an ISO 8601 time' }).optional().meta({ description: 'Events that started before this time (the next_before of the previous answer)' }),
  limit: z.coerce.number({ message: 'limit must be a number' }).int().min(1, 'limit must be 1 to 100').max(100, 'limit must be 1 to 100').default(20),
});

export const PublicHistoryJson = z
  .object({
    items: z.array(
      z.union([WrittenIncident.extend({ type: z.literal('incident') }), PublicMaintenance.extend({ type: z.literal('maintenance'), started_at: z.iso.datetime() })]),
    ),
    next_before: z.iso.datetime().nullable().meta({ description: 'Pass as before for older events; null when there are none' }),
  })
  .meta({ id: 'PublicStatusHistory' });

export const UnlockInput = z.strictObject({ password: z.string({ message: 'password must be a string' }).min(1, 'password must not be empty').max(200) });

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
        under_maintenance: z.boolean().meta({ description: 'An announced maintenance window covering it is in progress: not down, whatever its checks say' }),
        group: z.string().nullable().meta({ description: 'The component group it is shown in' }),
        uptime_percentage: z.number().nullable(),
        uptime_bars: z.array(z.object({ date: z.iso.date(), total_checks: z.int(), successful_checks: z.int(), uptime_percentage: z.number().nullable() })),
        affected: z.boolean().meta({ description: 'A service it depends on is RED now' }),
        affected_by: z
          .array(z.object({ id: z.uuid(), name: z.string() }))
          .meta({ description: 'The RED services it depends on that this page lists (shown "Affected by …"); a dependency the page does not list is not named' }),
      }),
    ),
    groups: z.array(
      z.object({
        name: z.string(),
        status: serviceStatus.nullable().meta({ description: 'The worst status of its services, those under maintenance left out' }),
        under_maintenance: z.boolean(),
        service_ids: z.array(z.uuid()),
      }),
    ),
    incidents: z
      .array(z.union([WrittenIncident, AlertIncident]))
      .meta({ description: 'Open incidents: the written ones (oldest first), then open alerts of listed services unless auto_incidents is off (an alert a written incident was opened from is not repeated)' }),
    maintenance: z.array(PublicMaintenance).meta({ description: 'Announced maintenance, upcoming (from announce_hours_before) or in progress' }),
    links: z.object({ history: z.string(), subscribe: z.string(), rss: z.string(), atom: z.string() }),
  })
  .meta({ id: 'PublicStatusPage' });
