// What the Uptime Kuma importer reads, the same whether it came from a kuma.db (1.23 or 2.x) or
// a version 1 JSON backup: monitors with snake_case keys (the database's column names, which
// the backup spells in camelCase), and the rows they refer to.

export type Row = Record<string, unknown>;

export interface KumaTag {
  name: string;
  value: string;
}

/** A monitor: its columns, plus its tags and the notifications it sends to. */
export interface KumaMonitor extends Row {
  id: number;
  name: string;
  type: string;
  tags: KumaTag[];
  notification_ids: number[];
  accepted_statuscodes: string[];
}

export interface KumaNotification {
  id: number;
  name: string;
  active: boolean;
  /** The provider's settings, `type` among them. */
  config: Row;
}

export interface KumaMaintenance extends Row {
  id: number;
  title: string;
  strategy: string;
  monitor_ids: number[];
}

export interface KumaStatusPage {
  slug: string;
  title: string;
  description: string | null;
  published: boolean;
  password: boolean;
  domains: string[];
  /** The page's sections, in order, each with its monitors in order. */
  groups: { name: string; monitor_ids: number[] }[];
  incidents: number;
}

export interface KumaData {
  /** "an Uptime Kuma 2.x database", "an Uptime Kuma 1.23.17 JSON backup": what the report calls it. */
  description: string;
  /** 1 or 2: some monitor types changed meaning between them. */
  major: 1 | 2;
  /** False for a JSON backup, which holds only monitors and notifications. */
  complete: boolean;
  monitors: KumaMonitor[];
  notifications: KumaNotification[];
  proxies: Map<number, Row>;
  dockerHosts: Map<number, Row>;
  maintenances: KumaMaintenance[];
  statusPages: KumaStatusPage[];
  /** The server's time zone setting, which maintenance "same as server" means. */
  serverTimezone: string | undefined;
}

/** SQLite keeps booleans as 0 and 1, the backup as true and false. */
export function isTrue(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 'true';
}

export function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

export function numberAt(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** A JSON column (text in the database, already parsed in the backup); undefined when it does not parse. */
export function parsedJson(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? undefined;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/** "retryInterval" -> "retry_interval"; snake_case keys stay as they are. */
export function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
