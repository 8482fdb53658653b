// Request and response shapes of /services (API.md "Services").
import { z } from 'zod';
import { CHECK_OPTION_SCHEMAS } from '../../../../shared/src/check-options.js';
import { CHECK_TYPES, isInternalCheckType, normaliseCheckType } from '../../../../shared/src/check-types.js';
import { readOnly } from '../../http/validate.js';
import type { ServicesSummary } from './service-overview.repository.js';
import type { ServiceOverview, ServiceView } from './services.service.js';
import type { TestRunAnswer } from '../agents/test-runs.js';

const text = (field: string, max: number) =>
  z.string({ message: `${field} must be a string` }).trim().max(max, `${field} must be at most ${max} characters`);

const uuid = (field: string) => z.uuid({ message: `${field} must be a UUID` });

const checkType = z
  .string({ message: 'check_type must be a string' })
  .transform((value, ctx) => {
    const type = normaliseCheckType(value);
    // Internal types belong to the features that own their services (/ssl-certificates).
    if (!type || isInternalCheckType(type)) {
      ctx.addIssue({ code: 'custom', message: `unsupported check_type "${value}"` });
      return z.NEVER;
    }
    return type;
  })
  .meta({ description: `One of ${CHECK_TYPES.join(', ')} (any case); the family each belongs to decides the endpoint's form and the options (x-options-by-family).` });

/** Each family's options as JSON Schema, for the OpenAPI document. */
function optionsByFamily(): Record<string, unknown> {
  const families: Record<string, unknown> = {};
  for (const [family, schema] of Object.entries(CHECK_OPTION_SCHEMAS)) {
    const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
    families[family] = json;
  }
  return families;
}

export const LOCATION = /^[a-z0-9][a-z0-9_.-]{0,62}$/i;

// Read-only fields a client may echo back from a GET; they are accepted and ignored.
const echoed = readOnly('id', 'status', 'last_checked_at', 'last_response_time_ms', 'stale', 'last_result_at', 'flapping', 'suppressed_by', 'created_at', 'updated_at');

export const MAX_DEPENDENCIES = 50;

export const fields = {
  organization_id: uuid('organization_id').optional(),
  name: text('name', 200).min(1, 'name must not be empty'),
  description: text('description', 2000).nullable().optional(),
  environment: text('environment', 100).nullable().optional(),
  endpoint: text('endpoint', 2048).min(1, 'endpoint must not be empty'),
  check_type: checkType,
  check_interval_seconds: z
    .number({ message: 'check_interval_seconds must be an integer' })
    .int('check_interval_seconds must be an integer')
    .min(5, 'check_interval_seconds must be at least 5')
    .max(86400, 'check_interval_seconds must be at most 86400'),
  timeout_seconds: z
    .number({ message: 'timeout_seconds must be an integer' })
    .int('timeout_seconds must be an integer')
    .min(1, 'timeout_seconds must be at least 1')
    .max(120, 'timeout_seconds must be at most 120'),
  tags: z
    .array(text('each tag', 64).min(1, 'a tag must not be empty'), { message: 'tags must be an array of strings' })
    .max(50, 'at most 50 tags')
    .transform((tags) => [...new Set(tags)]),
  locations: z
    .array(z.string({ message: 'each location must be a string' }).regex(LOCATION, 'a location is 1-63 letters, digits, dots, dashes or underscores'), {
      message: 'locations must be an array of strings',
    })
    .min(1, 'locations must name at least one location')
    .max(20, 'at most 20 locations')
    .transform((locations) => [...new Set(locations)]),
  options: z.record(z.string(), z.unknown(), { message: 'options must be an object' }).meta({
    description:
      'Options of the check type\'s family (x-options-by-family: HTTP covers HTTP and HTTPS, TCP covers TELNET, and so on); an option of another family is refused with 400. Every family takes assertions, degraded_after_ms, fail_after_ms, min_failing_locations, retries and retry_interval_seconds. Secrets (password, private_key, bearer_token, client_key, oauth2.client_secret, community, auth_password, priv_password, secret, token, a proxy password) are answered as ********.',
    'x-options-by-family': optionsByFamily(),
  }),
  paused: z.boolean({ message: 'paused must be true or false' }).meta({
    description:
      'true: no agent checks it (agents drop its assignment), it opens no alert, and its status stays as it was; false (the default) resumes its checks.',
  }),
  // Repeats are dropped, as with tags: naming a dependency twice means it once.
  depends_on: z
    .array(uuid('each depends_on entry'), { message: 'depends_on must be an array of service ids' })
    .max(MAX_DEPENDENCIES, `depends_on names at most ${MAX_DEPENDENCIES} services`)
    .transform((ids) => [...new Set(ids)])
    .meta({
      description:
        'Ids of services of the same organization this service depends on. While one of them is RED, failures of this service are stored and shown but open no alert; when it recovers, a service still failing opens its alert then. No cycles.',
    }),
};

export const CreateServiceInput = z.strictObject({
  ...echoed,
  ...fields,
  check_interval_seconds: fields.check_interval_seconds.default(60),
  timeout_seconds: fields.timeout_seconds.default(10),
  tags: fields.tags.default([]),
  locations: fields.locations.default(['local']),
  options: fields.options.default({}),
  paused: fields.paused.default(false),
  depends_on: fields.depends_on.default([]),
});
export type CreateServiceInput = z.infer<typeof CreateServiceInput>;

export const UpdateServiceInput = z.strictObject({
  ...echoed,
  organization_id: fields.organization_id,
  name: fields.name.optional(),
  description: fields.description,
  environment: fields.environment,
  endpoint: fields.endpoint.optional(),
  check_type: fields.check_type.optional(),
  check_interval_seconds: fields.check_interval_seconds.optional(),
  timeout_seconds: fields.timeout_seconds.optional(),
  tags: fields.tags.optional(),
  locations: fields.locations.optional(),
  options: fields.options.optional(),
  paused: fields.paused.optional(),
  depends_on: fields.depends_on.optional().meta({ description: 'Replaces the whole list; [] removes every dependency.' }),
});
export type UpdateServiceInput = z.infer<typeof UpdateServiceInput>;

export const SERVICE_SORTS = ['created_at', 'name', 'status'] as const;
export type ServiceSort = (typeof SERVICE_SORTS)[number];

const queryText = (field: string, max: number) =>
  z.string({ message: `${field} must be given once` }).min(1, `${field} must not be empty`).max(max, `${field} must be at most ${max} characters`);
const queryInteger = (field: string, min: number) =>
  z.coerce.number({ message: `${field} must be an integer` }).int(`${field} must be an integer`).min(min, `${field} must be at least ${min}`);

/** The filters, order and page of GET /services and GET /services/overview. */
export const ListServicesQuery = z.strictObject({
  org: z.string().min(1).max(100).optional(),
  // PENDING: no result yet (status null).
  status: z.enum(['GREEN', 'YELLOW', 'RED', 'PENDING'], { message: 'status must be GREEN, YELLOW, RED or PENDING' }).optional(),
  tag: z.string().min(1).max(64).optional(),
  check_type: checkType.optional(),
  environment: queryText('environment', 100).optional(),
  location: queryText('location', 63).optional(),
  q: queryText('q', 200).optional(),
  sort: z.enum(SERVICE_SORTS, { message: 'sort must be created_at, name or status' }).optional(),
  limit: queryInteger('limit', 1).max(1000, 'limit must be at most 1000').optional(),
  offset: queryInteger('offset', 0).optional(),
});
export type ListServicesQuery = z.infer<typeof ListServicesQuery>;

export const ServicesSummaryQuery = z.strictObject({ org: ListServicesQuery.shape.org });
export type ServicesSummaryQuery = z.infer<typeof ServicesSummaryQuery>;

export const ServiceIdParam = uuid('service id');

export function toServiceJson(s: ServiceView) {
  return {
    id: s.id,
    organization_id: s.organizationId,
    name: s.name,
    description: s.description,
    environment: s.environment,
    endpoint: s.endpoint,
    check_type: s.checkType,
    check_interval_seconds: s.checkIntervalSeconds,
    timeout_seconds: s.timeoutSeconds,
    status: s.status,
    tags: s.tags,
    locations: s.locations,
    options: s.options,
    last_checked_at: s.lastCheckedAt?.toISOString() ?? null,
    last_response_time_ms: s.lastResponseTimeMs,
    paused: s.paused,
    // A paused service is not watched: stale only while it should be checked.
    stale: s.stale && !s.paused,
    last_result_at: s.lastCheckedAt?.toISOString() ?? null,
    flapping: s.flapping,
    depends_on: s.dependsOn,
    suppressed_by: s.suppressedBy,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

export function toServicesSummaryJson(s: ServicesSummary) {
  return { total: s.total, statuses: s.statuses, tags: s.tags, environments: s.environments, locations: s.locations, check_types: s.checkTypes };
}

export function toServiceOverviewJson({ service: s, locationStatuses, trend }: ServiceOverview) {
  return {
    id: s.id,
    name: s.name,
    check_type: s.checkType,
    endpoint: s.endpoint,
    environment: s.environment,
    tags: s.tags,
    locations: s.locations,
    status: s.status,
    paused: s.paused,
    stale: s.stale && !s.paused,
    last_result_at: s.lastCheckedAt?.toISOString() ?? null,
    flapping: s.flapping,
    last_checked_at: s.lastCheckedAt?.toISOString() ?? null,
    last_response_time_ms: s.lastResponseTimeMs,
    location_statuses: locationStatuses.map((l) => ({
      location: l.location,
      status: l.status,
      checked_at: l.checkedAt.toISOString(),
      response_time_ms: l.responseTimeMs,
    })),
    trend,
  };
}

// Answers (API.md "Services"). The API tests check every answer they receive against these.
const serviceStatus = z.enum(['GREEN', 'YELLOW', 'RED']);
const STALE = z.boolean().meta({
  description:
    'No result for three check intervals (and at least 90 s) while it should be checked, or every location it is checked from has its agents offline: its status is the last one known. Never true while paused.',
});
const LAST_RESULT_AT = z.iso.datetime().nullable().meta({ description: 'When its last result was taken; null when it never had one' });

const FLAPPING = z.boolean().meta({ description: 'Its status changed more than FLAP_CHANGES times within FLAP_WINDOW_MINUTES: its alert stays open and notifies once until it settles' });

export const ServiceJson = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    environment: z.string().nullable(),
    endpoint: z.string(),
    check_type: z.string(),
    check_interval_seconds: z.int(),
    timeout_seconds: z.int(),
    status: serviceStatus.nullable().meta({ description: 'null until the first result' }),
    tags: z.array(z.string()),
    locations: z.array(z.string()),
    options: z.record(z.string(), z.unknown()),
    last_checked_at: z.iso.datetime().nullable(),
    last_response_time_ms: z.number().nullable(),
    paused: z.boolean().meta({ description: 'No agent checks it and it opens no alert; status keeps its value from before the pause' }),
    stale: STALE,
    last_result_at: LAST_RESULT_AT,
    flapping: FLAPPING,
    depends_on: z.array(z.uuid()).meta({ description: 'The services this one depends on, in the order given' }),
    suppressed_by: z
      .array(z.object({ id: z.uuid(), name: z.string() }))
      .meta({ description: 'Its dependencies that are RED now: while any is, its failures open no alert. [] otherwise.' }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'Service' });

export const ServicesSummaryJson = z
  .object({
    total: z.int(),
    statuses: z.object({ GREEN: z.int(), YELLOW: z.int(), RED: z.int(), PENDING: z.int() }),
    tags: z.array(z.string()),
    environments: z.array(z.string()),
    locations: z.array(z.string()),
    check_types: z.array(z.string()),
  })
  .meta({ id: 'ServicesSummary' });

export const ServiceOverviewJson = z
  .object({
    id: z.uuid(),
    name: z.string(),
    check_type: z.string(),
    endpoint: z.string(),
    environment: z.string().nullable(),
    tags: z.array(z.string()),
    locations: z.array(z.string()),
    status: serviceStatus.nullable(),
    paused: z.boolean(),
    stale: STALE,
    last_result_at: LAST_RESULT_AT,
    flapping: FLAPPING,
    last_checked_at: z.iso.datetime().nullable(),
    last_response_time_ms: z.number().nullable(),
    location_statuses: z.array(
      z.object({ location: z.string(), status: serviceStatus, checked_at: z.iso.datetime(), response_time_ms: z.number().nullable() }),
    ),
    trend: z.array(z.number().nullable()).meta({ description: 'Mean response time of each of the last hours, oldest first' }),
  })
  .meta({ id: 'ServiceOverview' });

export const ServicesOverviewJson = z.object({ total: z.int(), services: z.array(ServiceOverviewJson) });

export const CheckEnqueued = z.object({ status: z.literal('check enqueued') });

/** POST /services/test: a body as for create, and where to run it from. */
export const TestServiceInput = CreateServiceInput.extend({
  service_id: uuid('service_id')
    .optional()
    .meta({ description: 'A saved service this body edits: a secret option sent back as ******** is then run with its stored value. Member or above of its organization.' }),
  location: z
    .string({ message: 'location must be a string' })
    .regex(LOCATION, 'a location is 1-63 letters, digits, dots, dashes or underscores')
    .optional()
    .meta({ description: 'Where the check runs; the first of `locations` by default.' }),
});
export type TestServiceInput = z.infer<typeof TestServiceInput>;

export const TestRunJson = z
  .object({
    status: serviceStatus,
    response_time_ms: z.number(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).meta({ description: 'As the agent reported them: timings, facts, assertions, steps' }),
    location: z.string(),
    agent_id: z.string(),
    checked_at: z.iso.datetime(),
  })
  .meta({ id: 'TestRun' });

export function toTestRunJson(r: Extract<TestRunAnswer, { answered: true }>): z.infer<typeof TestRunJson> {
  return {
    status: r.status,
    response_time_ms: r.responseTimeMs,
    message: r.message,
    details: r.details,
    location: r.location,
    agent_id: r.agentId,
    checked_at: r.checkedAt.toISOString(),
  };
}
