// The outpost.yaml format: the desired state of one organization, every resource keyed by
// its name (status pages by slug) and referring to others by name. Secrets may only be
// ${ENV} references, so a file can be committed; docs/outpost.schema.json is generated
// from this schema (npm run generate:cli-schema).
import { z } from 'zod';
import { CHECK_TYPES, endpointFormat, type CheckType } from '../../../shared/src/check-types.js';
import { parseCheckOptions, SECRET_OPTION_KEYS } from '../../../shared/src/check-options.js';
import { endpointProblem } from '../../../shared/src/endpoints.js';
import { proxyPassword } from '../../../shared/src/proxy-password.js';
import { MASK, ORG_SECRET_REFERENCE } from './secret-options.js';
import { StatusPageEntry } from './status-page-entry.js';

export { StatusPageEntry };

/** `${NAME}`: replaced by the environment variable when the file is applied. */
export const ENV_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

const secretRef = z
  .string()
  .regex(ENV_REFERENCE, 'a secret must be an ${ENV} reference, e.g. ${WEBHOOK_SECRET}, never the secret itself')
  .describe('a secret: an ${ENV} reference, resolved when applied and never exported');

/** A whole value matching one of these patterns (whole-value regexes, or sources). */
const oneOf = (...patterns: (RegExp | string)[]) => new RegExp(`^(?:${patterns.map((p) => (typeof p === 'string' ? p : p.source.slice(1, -1))).join('|')})$`);

// A service's secret option may also name an organization secret, which holds the value.
const optionSecret = z
  .string()
  .regex(
    oneOf(ENV_REFERENCE, ORG_SECRET_REFERENCE),
    'a secret option must be an ${ENV} reference, e.g. ${DB_PASSWORD}, or an organization secret, e.g. {{secrets.DB_PASSWORD}}; never the secret itself',
  )
  .describe('a secret: an ${ENV} reference, resolved when applied and never exported, or a {{secrets.NAME}} reference to an organization secret');

/** The options' keys at SECRET_OPTION_KEYS (dotted paths) as secrets, nested ones in open objects. */
function secretOptionsShape(keys: readonly string[]): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  const nested = new Map<string, string[]>();
  for (const key of keys) {
    const [head, ...rest] = key.split('.') as [string, ...string[]];
    if (rest.length === 0) shape[head] = optionSecret.optional();
    else nested.set(head, [...(nested.get(head) ?? []), rest.join('.')]);
  }
  for (const [head, rest] of nested) shape[head] = z.looseObject(secretOptionsShape(rest)).optional();
  return shape;
}

const PROXY_PASSWORD = oneOf('\\*{8}', ENV_REFERENCE, ORG_SECRET_REFERENCE);
const proxy = z
  .string()
  .refine((url) => {
    const password = proxyPassword(url)?.password;
    return password === undefined || PROXY_PASSWORD.test(password);
  }, `a proxy's password must be an \${ENV} reference, a {{secrets.NAME}} reference, or ${MASK} to keep the stored one`)
  .describe('http://[user:password@]host:port, or "env"; a password only as a reference (or masked, as exported)');

const name = z.string().trim().min(1, 'name must not be empty').max(200);
const names = (what: string) => z.array(z.string().min(1)).describe(`${what}, by name`);
const seconds = z.number().int();
const checkType = z
  .string()
  .refine((t) => CHECK_TYPES.includes(t.trim().toUpperCase() as CheckType), `must be one of ${CHECK_TYPES.join(', ')}`)
  .transform((t) => t.trim().toUpperCase())
  .describe(`one of ${CHECK_TYPES.join(', ')} (any case)`);

export const ServiceEntry = z
  .strictObject({
    name: name.describe('unique in the organization; how other resources refer to this service'),
    check_type: checkType,
    endpoint: z.string().min(1),
    description: z.string().nullable().default(null),
    environment: z.string().nullable().default(null),
    check_interval_seconds: seconds.min(5).max(86400).default(60),
    timeout_seconds: seconds.min(1).max(120).default(10),
    tags: z.array(z.string().min(1)).default([]),
    locations: z.array(z.string().min(1)).min(1).default(['local']),
    // Check options are open (validated below with the API's rules); the secret ones are references.
    options: z.looseObject({ ...secretOptionsShape(SECRET_OPTION_KEYS), proxy: proxy.optional() }).default({}),
    depends_on: names('services or heartbeats of the file or the server whose RED holds back its alerts').default([]),
    paused: z.boolean().default(false).describe('true: no agent checks it and it opens no alert (its status is kept); apply resumes a service paused elsewhere unless this says true'),
  })
  // Checked here with the API's own rules, so that a mistake names its line; an endpoint
  // with ${ENV} in it is left to the API.
  .superRefine((service, ctx) => {
    const type = service.check_type as CheckType;
    if (!CHECK_TYPES.includes(type)) return;
    const options = parseCheckOptions(type, service.options);
    if (!options.ok) {
      for (const issue of options.issues) ctx.addIssue({ code: 'custom', path: ['options', ...(issue.path ? issue.path.split('.') : [])], message: issue.message });
    }
    if (service.endpoint.includes('${')) return;
    const problem = endpointProblem(endpointFormat(type), service.endpoint);
    if (problem) ctx.addIssue({ code: 'custom', path: ['endpoint'], message: problem });
  })
  // The options as the server stores them (a MONGODB command given as text becomes its object),
  // so that the plan compares like with like.
  .transform((service) => {
    const parsed = parseCheckOptions(service.check_type as CheckType, service.options);
    return parsed.ok ? { ...service, options: parsed.options } : service;
  })
  .describe('a monitored service (POST /api/v1/services)');

export const SecretEntry = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a secret name is letters, digits and _, not starting with a digit (at most 64)'),
    value: secretRef,
  })
  .describe('an organization secret, which service options use as {{secrets.NAME}}; created from the environment when missing, then kept (the API never shows a value to compare)');

const provider = <P extends string, S extends z.ZodRawShape>(name: P, shape: S) => z.strictObject({ provider: z.literal(name), ...shape });
const text = z.string().min(1);

// A message template (Liquid) on any channel but a pager; the API parses it (README "Message templates").
const template = z.string().min(1).describe('a Liquid message template: the message text (README "Message templates")').optional();
const emailTemplate = z
  .union([z.string().min(1), z.strictObject({ subject: z.string().min(1).optional(), body: z.string().min(1).optional() })])
  .describe('a Liquid message template: the body, or {subject, body}')
  .optional();

// Chat and pager channels without a provider keep their original shape; each provider has its
// own keys (the API checks the values: control-plane/.../channel-providers.schema.ts).
const CHAT_CONFIG = z
  .union([
    z.strictObject({ webhook_url: text, template }),
    ...(['slack', 'discord', 'teams', 'mattermost', 'google_chat'] as const).map((name) => provider(name, { webhook_url: text, template })),
    provider('telegram', { bot_token: secretRef, chat_id: z.union([text, z.number().int()]), api_url: text.optional(), template }),
    provider('ntfy', { server_url: text, topic: text, token: secretRef.optional(), template }),
    provider('gotify', { server_url: text, token: secretRef, template }),
    provider('pushover', { token: secretRef, user: secretRef, api_url: text.optional(), template }),
  ])
  .describe('{webhook_url} for a {"text"} webhook, or provider slack, discord, teams, mattermost, google_chat {webhook_url}, telegram {bot_token, chat_id, api_url?}, ntfy {server_url, topic, token?}, gotify {server_url, token}, pushover {token, user, api_url?}; each may add template');

const PAGER_CONFIG = z
  .union([
    z.strictObject({ integration_key: secretRef }),
    provider('pagerduty', { integration_key: secretRef }),
    provider('opsgenie', { api_key: secretRef, region: z.enum(['us', 'eu']).optional(), api_url: text.optional() }),
  ])
  .describe('PagerDuty {integration_key} (provider pagerduty or none), or provider opsgenie {api_key, region?, api_url?}');

const CHANNEL_CONFIGS = {
  chat: CHAT_CONFIG,
  pager: PAGER_CONFIG,
  sms: z.strictObject({ to: z.string().min(1), template }),
  email: z.strictObject({ to: z.string().min(1), template: emailTemplate }),
  webhook: z.strictObject({
    url: z.string().min(1),
    method: z.enum(['POST', 'PUT']).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    secret: secretRef.optional(),
    template,
  }),
};

const channelOf = <T extends keyof typeof CHANNEL_CONFIGS>(type: T) =>
  z.strictObject({ name, type: z.literal(type), config: CHANNEL_CONFIGS[type], enabled: z.boolean().default(true) });

export const ChannelEntry = z
  .discriminatedUnion('type', [channelOf('chat'), channelOf('pager'), channelOf('sms'), channelOf('email'), channelOf('webhook')])
  .describe('a notification channel; its type cannot change in place (apply replaces it)');

const some = <T extends z.ZodType>(item: T) => z.array(item).min(1);

export const RuleSelectorEntry = z
  .strictObject({
    services: some(z.string().min(1)).optional().describe('services or heartbeats, by name'),
    tags: some(z.string().min(1)).optional().describe('a service must carry all of them'),
    environment: z.string().min(1).optional(),
    locations: some(z.string().min(1)).optional().describe('a service checked from any of them'),
    check_types: some(checkType).optional().describe('a service of any of them'),
  })
  .refine((s) => Object.values(s).some((v) => v !== undefined), 'name at least one of services, tags, environment, locations or check_types')
  .describe('the services a rule covers instead of one service: every matcher given must hold; services created later are covered too');

/** false is what the server holds when nothing is said: the file says nothing either. */
const flag = (what: string) =>
  z
    .boolean()
    .optional()
    .transform((v) => (v ? true : undefined))
    .describe(what);

export const RuleEntry = z
  .strictObject({
    name,
    service: z.string().min(1).nullable().default(null).describe('the service or heartbeat it watches, by name; null: every service, or those selector picks'),
    selector: RuleSelectorEntry.optional(),
    severity: z.enum(['critical', 'warning', 'info']),
    enabled: z.boolean().default(true),
    statuses: z.array(z.enum(['RED', 'YELLOW', 'GREEN'])).min(1).optional(),
    consecutive_failures: seconds.min(1).max(1000).optional(),
    response_time_ms_above: z.number().min(0).optional(),
    min_failing_locations: seconds.min(1).max(50).optional(),
    recovery_threshold: seconds.min(1).max(20).optional().describe('GREEN results in a row before its alert resolves itself; default 1'),
    repeat_interval_minutes: seconds.min(1).max(10_080).optional().describe('while its alert fires unacknowledged, its targets hear it again this often; default never'),
    no_data: flag('true: it also fires when a service it covers gets no result for three intervals'),
    agent_offline: flag('true: its targets hear of agents gone silent and locations gone dark'),
    channels: names('the channels it notifies instead of every channel').optional(),
    escalation_policy: z.string().min(1).optional().describe('an escalation policy, by name'),
  })
  .refine((r) => r.service === null || r.selector === undefined, { path: ['selector'], message: 'give service or selector, not both' })
  .describe('an alert rule');

const WINDOW_ONE_OFF = ['starts_at', 'ends_at'] as const;
const WINDOW_RECURRING = ['schedule', 'timezone', 'duration_minutes'] as const;

export const MaintenanceEntry = z
  .strictObject({
    name,
    starts_at: z.iso.datetime({ offset: true }).optional().describe('a one-off window opens here (or give schedule)'),
    ends_at: z.iso.datetime({ offset: true }).optional().describe('a one-off window closes here'),
    schedule: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe('a cron expression (5 fields, or 6 with seconds first, or @daily, @weekly...): a recurring window opens at each run (or give starts_at and ends_at)'),
    timezone: z.string().min(1).optional().describe('the IANA time zone of schedule, e.g. Europe/Berlin; default UTC'),
    duration_minutes: z.number().int().min(1).max(10_080).optional().describe('how long each occurrence of a recurring window lasts, in minutes'),
    services: names('the services it silences; empty: every service').default([]),
    status_pages: z
      .array(z.string().min(1))
      .default([])
      .describe('the status pages that announce it, by slug: upcoming, in progress with its services under maintenance, then in their history; their subscribers hear of it'),
    announce_hours_before: z.number().int().min(0).max(8760).default(72).describe('how long before each occurrence its status pages show it as upcoming, in hours'),
  })
  .superRefine((w, ctx) => {
    const issue = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [field], message });
    const recurring = WINDOW_RECURRING.filter((k) => w[k] !== undefined);
    if (recurring.length > 0 && WINDOW_ONE_OFF.some((k) => w[k] !== undefined)) issue(recurring[0]!, 'give either starts_at and ends_at, or schedule and duration_minutes, not both');
    else if (recurring.length > 0) for (const k of (['schedule', 'duration_minutes'] as const).filter((k) => w[k] === undefined)) issue(k, `${k} is required for a recurring window`);
    else for (const k of WINDOW_ONE_OFF.filter((k) => w[k] === undefined)) issue(k, `${k} is required (or give schedule and duration_minutes)`);
  })
  // As the server reads it, so that the plan compares like with like.
  .transform((w) => (w.schedule !== undefined && w.timezone === undefined ? { ...w, timezone: 'UTC' } : w))
  .describe('a maintenance window: one-off (starts_at, ends_at) or recurring (schedule, timezone, duration_minutes)');

export const HeartbeatEntry = z
  .strictObject({
    name,
    interval_seconds: seconds.min(1).optional().describe('a ping is expected this long after the previous one (or give schedule)'),
    schedule: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe('a cron expression (5 fields, or 6 with seconds first, or @daily, @hourly...): a ping is expected at each run (or give interval_seconds)'),
    timezone: z.string().min(1).optional().describe('the IANA time zone of schedule, e.g. Europe/Berlin; default UTC'),
    grace_seconds: seconds.min(0).default(60),
    max_runtime_seconds: seconds.min(1).max(7 * 86_400).nullable().default(null).describe('after a /start ping, how long the run may take; null: no limit'),
  })
  .superRefine((h, ctx) => {
    if (h.interval_seconds !== undefined && h.schedule !== undefined) ctx.addIssue({ code: 'custom', path: ['schedule'], message: 'give either interval_seconds or schedule, not both' });
    else if (h.interval_seconds === undefined && h.schedule === undefined) ctx.addIssue({ code: 'custom', path: ['interval_seconds'], message: 'interval_seconds or schedule is required' });
    else if (h.timezone !== undefined && h.schedule === undefined) ctx.addIssue({ code: 'custom', path: ['timezone'], message: 'timezone applies only to a schedule' });
  })
  // As the server reads it, so that the plan compares like with like.
  .transform((h) => (h.schedule !== undefined && h.timezone === undefined ? { ...h, timezone: 'UTC' } : h))
  .describe('a heartbeat (a job that pings Outpost), expected every interval_seconds or on a cron schedule');

export const OutpostFile = z
  .strictObject({
    secrets: z.array(SecretEntry).default([]),
    services: z.array(ServiceEntry).default([]),
    heartbeats: z.array(HeartbeatEntry).default([]),
    notification_channels: z.array(ChannelEntry).default([]),
    alert_rules: z.array(RuleEntry).default([]),
    maintenance_windows: z.array(MaintenanceEntry).default([]),
    status_pages: z.array(StatusPageEntry).default([]),
  })
  .describe('Outpost configuration as code: `outpost apply -f outpost.yaml` makes the organization match this file');
export type OutpostFile = z.infer<typeof OutpostFile>;
export type ServiceEntry = z.infer<typeof ServiceEntry>;
export type SecretEntry = z.infer<typeof SecretEntry>;
export type ChannelEntry = z.infer<typeof ChannelEntry>;
export type RuleEntry = z.infer<typeof RuleEntry>;
export type RuleSelectorEntry = z.infer<typeof RuleSelectorEntry>;
export type MaintenanceEntry = z.infer<typeof MaintenanceEntry>;
export type HeartbeatEntry = z.infer<typeof HeartbeatEntry>;

/** The JSON Schema editors use to complete and check the file. */
export function outpostFileJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(OutpostFile, { io: 'input', target: 'draft-2020-12' }),
    title: 'outpost.yaml',
  };
}
