// `outpost silences` and `outpost alerts snooze`: silences are made, listed and expired here,
// as with Alertmanager's amtool, and never in outpost.yaml: they last hours, and a file
// applied with --prune must not end a snooze someone made at 3 a.m. (docs/adr/).
import { ApiClient } from '../api-client.js';
import { UsageError } from '../cli-error.js';
import { render, type Column, type OutputFormat } from '../output.js';
import { findServiceId } from './resources.js';

type Row = Record<string, any>;
type Print = (text: string) => void;

const MATCHERS = ['service_ids', 'tags', 'environment', 'locations', 'check_types'];

/** "tags=payments,eu environment=production", in one order whatever the server's. */
const matchersText = (m: Row) =>
  MATCHERS.filter((key) => m[key] !== undefined)
    .map((key) => `${key}=${Array.isArray(m[key]) ? m[key].join(',') : m[key]}`)
    .join(' ');

const SILENCE_COLUMNS: Column<Row>[] = [
  ['ID', (s) => s.id],
  ['STATE', (s) => s.state],
  ['MATCHERS', (s) => matchersText(s.matchers)],
  ['STARTS', (s) => s.starts_at],
  ['ENDS', (s) => s.ends_at],
  ['COMMENT', (s) => s.comment],
];

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "90m", "4h", "1d" in milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+)\s*([mhd])$/.exec(text.trim());
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : 0;
  if (ms <= 0) throw new UsageError(`"${text}" is not a duration such as 30m, 4h or 1d`);
  return ms;
}

export function instant(text: string, flag: string): string {
  const at = Date.parse(text);
  if (Number.isNaN(at)) throw new UsageError(`${flag} must be a time such as 2030-01-31T18:00:00Z, not "${text}"`);
  return new Date(at).toISOString();
}

export interface CreateSilenceFlags {
  service?: string[];
  tag?: string[];
  environment?: string;
  location?: string[];
  checkType?: string[];
  for?: string;
  until?: string;
  from?: string;
  comment: string;
}

export function silenceCommands(api: ApiClient, format: OutputFormat, print: Print) {
  const show = (s: Row | Row[]) => print(render(s, format, SILENCE_COLUMNS));
  return {
    async list(state: string) {
      show(await api.get<Row[]>(`/silences?state=${encodeURIComponent(state)}`));
    },
    async create(f: CreateSilenceFlags) {
      if (Boolean(f.for) === Boolean(f.until)) throw new UsageError('give --for (e.g. 4h) or --until, one of them');
      const startsAt = f.from ? instant(f.from, '--from') : undefined;
      const endsAt = f.until ? instant(f.until, '--until') : new Date((startsAt ? Date.parse(startsAt) : Date.now()) + parseDuration(f.for!)).toISOString();
      const matchers = {
        ...(f.service?.length ? { service_ids: await Promise.all(f.service.map((ref) => findServiceId(api, ref))) } : {}),
        ...(f.tag?.length ? { tags: f.tag } : {}),
        ...(f.environment ? { environment: f.environment } : {}),
        ...(f.location?.length ? { locations: f.location } : {}),
        ...(f.checkType?.length ? { check_types: f.checkType.map((t) => t.toUpperCase()) } : {}),
      };
      show(await api.post<Row>('/silences', { matchers, ...(startsAt ? { starts_at: startsAt } : {}), ends_at: endsAt, comment: f.comment }));
    },
    async expire(id: string) {
      show(await api.post<Row>(`/silences/${encodeURIComponent(id)}/expire`));
    },
    /** The alert's service, silenced for the duration, as the dashboard's Snooze does. */
    async snooze(alertId: string, duration: string) {
      const ms = parseDuration(duration);
      const alert = await api.get<Row>(`/alerts/${encodeURIComponent(alertId)}`);
      if (!alert.service_id) throw new UsageError(`alert ${alertId} is about an agent or a location, not a service: silence nothing, or fix the agent`);
      show(await api.post<Row>('/silences', { matchers: { service_ids: [alert.service_id] }, ends_at: new Date(Date.now() + ms).toISOString(), comment: `Snoozed from alert ${alert.title}` }));
    },
  };
}
