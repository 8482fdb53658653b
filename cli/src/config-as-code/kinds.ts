// One descriptor per resource kind of the file: how to list it, how a server object reads in
// the file's terms (names for ids), and how file fields become a request body. The planner
// compares in the file's terms, so a reference is equal when it names the same resource.
import { SECRET_CONFIG_KEYS, maskSecret } from '../../../shared/src/channel-secrets.js';
import { SECRET_OPTION_KEYS } from '../../../shared/src/check-options.js';
import { isInternalCheckType } from '../../../shared/src/check-types.js';
import type { ApiClient } from '../api-client.js';
import { CliError } from '../cli-error.js';
import type { OutpostFile } from './file-schema.js';
import { isUnresolvedSecret } from './load-file.js';
import { confirmedPassword } from './page-passwords.js';
import type { References } from './references.js';
import { readPath, withPath } from './secret-options.js';

export type Row = Record<string, any>;
export type Entry = Record<string, any>;
export type Section = keyof OutpostFile;

/** An object field some of whose keys are secrets the API shows masked. */
interface SecretField {
  field: string;
  /** Dotted paths into the field. */
  keys: readonly string[];
  /** Keys holding a URL whose password is a secret, which the API shows masked. */
  urls?: readonly string[];
  /** Whether a plain secret from the environment is what the masked value shows. */
  matches(plain: string, masked: string): boolean;
}

export interface Kind {
  section: Section;
  label: string;
  path: string;
  keyField: 'name' | 'slug';
  /** The fields compared and sent, in the file's terms. */
  fields: readonly string[];
  list(api: ApiClient): Promise<Row[]>;
  toEntry(row: Row, refs: References): Entry;
  /** The request body for these fields of the entry; `current` gives secrets to keep. */
  toBody(entry: Entry, fields: readonly string[], refs: References, current?: Row): Row;
  secrets?: SecretField;
  /** Fields whose order means nothing. */
  unordered?: readonly string[];
  /** Fields holding instants, equal when they name the same instant. */
  instants?: readonly string[];
  /** A change the API cannot make in place: the resource is deleted and created again. */
  replacedOn?: readonly string[];
  /**
   * Fields the API never shows (a password): absent from the entry, the stored value is kept;
   * never exported, and shown masked in the plan.
   */
  writeOnly?: readonly string[];
  /** What the API would refuse of this entry given the resource as it is (paths inside the entry). */
  check?(entry: Entry, current: Row | undefined): { path: (string | number)[]; message: string }[];
}

const pick = (entry: Entry, fields: readonly string[]) => Object.fromEntries(fields.filter((f) => f in entry).map((f) => [f, entry[f]]));

/** An object field with its secrets: the environment's value, or the masked one the server keeps. */
function withSecrets(value: Entry, current: Entry | undefined, keys: readonly string[]): Entry {
  let out = value;
  for (const key of keys) {
    const secret = readPath(out, key);
    if (!isUnresolvedSecret(secret)) continue;
    const kept = readPath(current, key);
    if (typeof kept === 'string') out = withPath(out, key, kept);
    else throw new CliError(`environment variable ${String(secret).slice(2, -1)} is not set, and the server holds no ${key} to keep`);
  }
  return out;
}

const SERVICE_FIELDS = ['check_type', 'endpoint', 'description', 'environment', 'check_interval_seconds', 'timeout_seconds', 'tags', 'locations', 'options', 'paused'] as const;
/** Sent after every service and heartbeat of the file exists (apply.ts), since it names them. */
export const DEPENDS_ON = 'depends_on';

export const serviceKind: Kind = {
  section: 'services',
  label: 'service',
  path: '/services',
  keyField: 'name',
  fields: [...SERVICE_FIELDS, DEPENDS_ON],
  unordered: ['tags', 'locations', DEPENDS_ON],
  secrets: { field: 'options', keys: SECRET_OPTION_KEYS, urls: ['proxy'], matches: () => true },
  list: async (api) => (await api.get<Row[]>('/services')).filter((s) => !isInternalCheckType(s.check_type)),
  toEntry: (s, refs) => ({ name: s.name, ...pick(s, SERVICE_FIELDS), depends_on: (s.depends_on ?? []).map((id: string) => refs.services.nameOf(id)) }),
  toBody(entry, fields, refs, current) {
    const body: Row = { name: entry.name, ...pick(entry, fields.filter((f) => f !== DEPENDS_ON)) };
    if (fields.includes('options')) body.options = withSecrets(entry.options, current?.options, SECRET_OPTION_KEYS);
    if (fields.includes(DEPENDS_ON)) body.depends_on = entry.depends_on.map((n: string) => refs.services.idOf(n));
    return body;
  },
};

const HEARTBEAT_FIELDS = ['interval_seconds', 'schedule', 'timezone', 'grace_seconds', 'max_runtime_seconds'] as const;

export const heartbeatKind: Kind = {
  section: 'heartbeats',
  label: 'heartbeat',
  path: '/heartbeats',
  keyField: 'name',
  fields: HEARTBEAT_FIELDS,
  list: (api) => api.get<Row[]>('/heartbeats'),
  // Only the fields of its mode: sending interval_seconds or schedule switches the server's.
  toEntry: (h) => ({
    name: h.name,
    ...(h.schedule === null ? { interval_seconds: h.interval_seconds } : { schedule: h.schedule, timezone: h.timezone }),
    grace_seconds: h.grace_seconds,
    max_runtime_seconds: h.max_runtime_seconds ?? null,
  }),
  toBody: (entry, fields) => ({ name: entry.name, ...pick(entry, fields) }),
};

export const channelKind: Kind = {
  section: 'notification_channels',
  label: 'notification channel',
  path: '/notification-channels',
  keyField: 'name',
  fields: ['type', 'config', 'enabled'],
  replacedOn: ['type'],
  secrets: { field: 'config', keys: SECRET_CONFIG_KEYS, matches: (plain, masked) => maskSecret(plain) === masked },
  list: (api) => api.get<Row[]>('/notification-channels'),
  toEntry: (c) => ({ name: c.name, type: c.channel_type, config: c.config, enabled: c.enabled }),
  toBody(entry, fields, _refs, current) {
    const body: Row = { name: entry.name };
    if (fields.includes('type')) body.channel_type = entry.type;
    if (fields.includes('config')) body.config = withSecrets(entry.config, current?.config, SECRET_CONFIG_KEYS);
    if (fields.includes('enabled')) body.enabled = entry.enabled;
    return body;
  },
};

const CONDITION_FIELDS = [
  'statuses',
  'consecutive_failures',
  'response_time_ms_above',
  'min_failing_locations',
  'recovery_threshold',
  'repeat_interval_minutes',
  'no_data',
  'agent_offline',
] as const;
const RULE_FIELDS = ['service', 'selector', 'severity', 'enabled', ...CONDITION_FIELDS, 'channels', 'escalation_policy'] as const;

/** A rule's condition.selector in the file's terms: services by name, the other matchers as they are. */
function selectorEntry(selector: Row, refs: References): Entry {
  const { service_ids, ...rest } = selector;
  return Array.isArray(service_ids) ? { services: service_ids.map((id: string) => refs.services.nameOf(id)), ...rest } : rest;
}

function selectorBody(selector: Entry, refs: References): Row {
  const { services, ...rest } = selector;
  return Array.isArray(services) ? { service_ids: services.map((n: string) => refs.services.idOf(n)), ...rest } : rest;
}

export const ruleKind: Kind = {
  section: 'alert_rules',
  label: 'alert rule',
  path: '/alert-rules',
  keyField: 'name',
  fields: RULE_FIELDS,
  unordered: ['statuses', 'channels'],
  list: (api) => api.get<Row[]>('/alert-rules'),
  toEntry(r, refs) {
    const c: Row = r.condition ?? {};
    const entry: Entry = { name: r.name, service: r.service_id ? refs.services.nameOf(r.service_id) : null, severity: r.severity, enabled: r.enabled };
    if (c.selector) entry.selector = selectorEntry(c.selector, refs);
    // false, like absent, is the default: the file says nothing (file-schema.ts reads false so too).
    for (const f of CONDITION_FIELDS) if (c[f] !== undefined && c[f] !== null && c[f] !== false) entry[f] = c[f];
    if (Array.isArray(c.channel_ids)) entry.channels = c.channel_ids.map((id: string) => refs.channels.nameOf(id));
    if (c.escalation_policy_id) entry.escalation_policy = refs.policies.nameOf(c.escalation_policy_id);
    return entry;
  },
  toBody(entry, fields, refs, current) {
    const body: Row = { name: entry.name };
    if (fields.includes('service')) body.service_id = entry.service === null ? null : refs.services.idOf(entry.service);
    if (fields.includes('severity')) body.severity = entry.severity;
    if (fields.includes('enabled')) body.enabled = entry.enabled;
    if (fields.some((f) => !['service', 'severity', 'enabled'].includes(f))) {
      // The condition is replaced whole; keys the file format does not know (team_ids, ...) are kept.
      const known = new Set<string>([...CONDITION_FIELDS, 'selector', 'channel_ids', 'escalation_policy_id']);
      const kept = Object.fromEntries(Object.entries(current?.condition ?? {}).filter(([k]) => !known.has(k)));
      body.condition = {
        ...kept,
        ...pick(entry, CONDITION_FIELDS),
        ...(entry.selector ? { selector: selectorBody(entry.selector, refs) } : {}),
        channel_ids: entry.channels ? entry.channels.map((n: string) => refs.channels.idOf(n)) : null,
        escalation_policy_id: entry.escalation_policy ? refs.policies.idOf(entry.escalation_policy) : null,
      };
    }
    return body;
  },
};

/** What the API assumes when a window names none (maintenance.schema.ts). */
const DEFAULT_ANNOUNCE_HOURS = 72;
const WINDOW_TIMING = ['starts_at', 'ends_at', 'schedule', 'timezone', 'duration_minutes'];

/** A window's timing in the file: the fields of its form only (one-off or recurring). */
const windowTiming = (w: Row) =>
  w.schedule == null ? { starts_at: w.starts_at, ends_at: w.ends_at } : { schedule: w.schedule, timezone: w.timezone, duration_minutes: w.duration_minutes };

export const maintenanceKind: Kind = {
  section: 'maintenance_windows',
  label: 'maintenance window',
  path: '/maintenance-windows',
  keyField: 'name',
  fields: [...WINDOW_TIMING, 'services', 'status_pages', 'announce_hours_before'],
  unordered: ['services', 'status_pages'],
  instants: ['starts_at', 'ends_at'],
  list: (api) => api.get<Row[]>('/maintenance-windows'),
  toEntry: (w, refs) => ({
    name: w.name,
    ...windowTiming(w),
    services: w.service_ids.map((id: string) => refs.services.nameOf(id)),
    status_pages: (w.status_page_ids ?? []).map((id: string) => refs.pages.nameOf(id)),
    announce_hours_before: w.announce_hours_before ?? DEFAULT_ANNOUNCE_HOURS,
  }),
  toBody(entry, fields, refs) {
    const body: Row = { name: entry.name };
    if (fields.includes('services')) body.service_ids = entry.services.map((n: string) => refs.services.idOf(n));
    if (fields.includes('status_pages')) body.status_page_ids = entry.status_pages.map((slug: string) => refs.pages.idOf(slug));
    if (fields.includes('announce_hours_before')) body.announce_hours_before = entry.announce_hours_before;
    // The API checks a form whole: any change of timing sends the entry's whole form, which
    // also switches a window from one form to the other.
    if (fields.some((f) => WINDOW_TIMING.includes(f))) Object.assign(body, windowTiming(entry));
    return body;
  },
};

const PAGE_SETTINGS = ['title', 'description', 'access', 'ip_allowlist', 'custom_domain', 'auto_incidents'] as const;
/** Sent together: the API lists grouped services with the others, so a page's listing is both. */
const PAGE_LISTING = ['services', 'groups'];
/** The password of a password page, read from password_env by load-file.ts. */
const PASSWORD = 'password';
/**
 * What a page's stored password is in the file's terms until apply confirmed that the file's is
 * the same (page-passwords.ts): not a string, so that no password equals it.
 */
const STORED_PASSWORD = Object.freeze({ stored: 'not shown by the API' });

export const statusPageKind: Kind = {
  section: 'status_pages',
  label: 'status page',
  path: '/status-pages',
  keyField: 'slug',
  fields: [...PAGE_SETTINGS, ...PAGE_LISTING, PASSWORD],
  unordered: ['ip_allowlist'],
  writeOnly: [PASSWORD],
  list: (api) => api.get<Row[]>('/status-pages'),
  toEntry(p, refs) {
    const grouped = new Set((p.groups ?? []).flatMap((g: Row) => g.service_ids));
    const entry: Entry = {
      slug: p.slug,
      title: p.title,
      description: p.description,
      access: p.access ?? (p.public === false ? 'members' : 'public'),
      ip_allowlist: p.ip_allowlist ?? [],
      custom_domain: p.custom_domain ?? null,
      auto_incidents: p.auto_incidents ?? true,
      services: p.service_ids.filter((id: string) => !grouped.has(id)).map((id: string) => refs.services.nameOf(id)),
      groups: (p.groups ?? []).map((g: Row) => ({ name: g.name, services: g.service_ids.map((id: string) => refs.services.nameOf(id)) })),
    };
    const password = confirmedPassword(p) ?? (p.password_set ? STORED_PASSWORD : undefined);
    if (password !== undefined) entry[PASSWORD] = password;
    return entry;
  },
  toBody(entry, fields, refs) {
    const body: Row = { slug: entry.slug, ...pick(entry, fields.filter((f) => (PAGE_SETTINGS as readonly string[]).includes(f))) };
    if (fields.some((f) => PAGE_LISTING.includes(f))) {
      body.service_ids = entry.services.map((n: string) => refs.services.idOf(n));
      body.groups = entry.groups.map((g: Entry) => ({ name: g.name, service_ids: g.services.map((n: string) => refs.services.idOf(n)) }));
    }
    if (fields.includes(PASSWORD) && entry[PASSWORD] !== undefined) body.password = entry[PASSWORD];
    return body;
  },
  check(entry, current) {
    if (entry.access !== 'password' || entry[PASSWORD] !== undefined || current?.password_set) return [];
    const message = entry.password_env
      ? `environment variable ${entry.password_env} is not set (needed for the password of status page "${entry.slug}")`
      : `status page "${entry.slug}" has no password yet: give password_env, the environment variable holding it`;
    return [{ path: [entry.password_env ? 'password_env' : 'access'], message }];
  },
};

// Organization secrets: the API never answers a value, so nothing can be compared. A secret the
// server lacks is created from the environment; one it has is kept as it is.
export const secretKind: Kind = {
  section: 'secrets',
  label: 'secret',
  path: '/secrets',
  keyField: 'name',
  fields: [],
  list: (api) => api.get<Row[]>('/secrets'),
  // Exported as a reference to the variable of its own name.
  toEntry: (s) => ({ name: s.name, value: `\${${s.name}}` }),
  toBody: (entry) => ({ name: entry.name, value: entry.value }),
};

/** In the order they are created: a kind refers only to kinds before it. */
export const KINDS: readonly Kind[] = [secretKind, channelKind, serviceKind, heartbeatKind, ruleKind, statusPageKind, maintenanceKind];
