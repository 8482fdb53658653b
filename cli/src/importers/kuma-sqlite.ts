// An Uptime Kuma kuma.db (SQLite, 1.23 or 2.x) as KumaData, read with sql.js (WebAssembly: no
// native build), loaded only when a database is imported. The file is read whole into memory
// and never written: a -wal file beside it is not read, so the user stops Kuma (or copies the
// database with a checkpoint) first, as the README says.
import type { Database } from 'sql.js';
import { isTrue, numberAt, parsedJson, text, type KumaData, type KumaMaintenance, type KumaMonitor, type KumaStatusPage, type Row } from './kuma-data.js';

export async function readKumaDatabase(bytes: Uint8Array): Promise<KumaData> {
  const { default: initSqlJs } = await import('sql.js');
  const SQL = await initSqlJs();
  const db = new SQL.Database(bytes);
  try {
    return readTables(db);
  } finally {
    db.close();
  }
}

function readTables(db: Database): KumaData {
  const tables = new Set(rows(db, "SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => String(r.name)));
  const all = (table: string, order = 'id') => (tables.has(table) ? rows(db, `SELECT * FROM "${table}" ORDER BY ${order}`) : []);
  if (!tables.has('monitor')) throw new Error('it is an SQLite database without a monitor table: not an Uptime Kuma kuma.db');
  // 2.x manages its schema with knex; 1.x patched it with SQL files.
  const major = tables.has('knex_migrations') ? 2 : 1;

  const tagNames = byId(all('tag'));
  const tags = groupBy(all('monitor_tag'), 'monitor_id', (r) => ({ name: String(tagNames.get(Number(r.tag_id))?.name ?? ''), value: text(r.value) ?? '' }));
  const notificationIds = groupBy(all('monitor_notification'), 'monitor_id', (r) => Number(r.notification_id));
  const monitors = all('monitor').map(
    (r): KumaMonitor => ({
      ...r,
      id: Number(r.id),
      name: String(r.name ?? ''),
      type: String(r.type ?? ''),
      tags: tags.get(Number(r.id)) ?? [],
      notification_ids: notificationIds.get(Number(r.id)) ?? [],
      accepted_statuscodes: statusCodes(r.accepted_statuscodes_json),
    }),
  );
  const maintenanceMonitors = groupBy(all('monitor_maintenance'), 'maintenance_id', (r) => Number(r.monitor_id));
  const maintenances = all('maintenance').map((r): KumaMaintenance => ({ ...r, id: Number(r.id), title: String(r.title ?? ''), strategy: String(r.strategy ?? ''), monitor_ids: maintenanceMonitors.get(Number(r.id)) ?? [] }));
  const settings = new Map(all('setting').map((r) => [String(r.key), r.value]));
  const timezone = parsedJson(settings.get('serverTimezone'));

  return {
    description: `an Uptime Kuma ${major === 2 ? '2.x' : '1.x'} database`,
    major,
    complete: true,
    monitors,
    notifications: all('notification').map((r) => ({ id: Number(r.id), name: String(r.name ?? ''), active: isTrue(r.active), config: objectOf(parsedJson(r.config)) })),
    proxies: byId(all('proxy')),
    dockerHosts: byId(all('docker_host')),
    maintenances,
    statusPages: statusPages(all('status_page'), all('group', 'weight'), all('monitor_group', 'weight'), all('status_page_cname'), all('incident')),
    serverTimezone: typeof timezone === 'string' && timezone !== '' ? timezone : undefined,
  };
}

function statusPages(pages: Row[], groups: Row[], monitorGroups: Row[], domains: Row[], incidents: Row[]): KumaStatusPage[] {
  const monitorsOf = groupBy(monitorGroups, 'group_id', (r) => Number(r.monitor_id));
  return pages.map((page) => {
    const id = Number(page.id);
    return {
      slug: String(page.slug ?? ''),
      title: String(page.title ?? ''),
      description: text(page.description) ?? null,
      published: isTrue(page.published),
      password: text(page.password) !== undefined,
      domains: domains.filter((d) => Number(d.status_page_id) === id).map((d) => String(d.domain)),
      groups: groups.filter((g) => Number(g.status_page_id) === id && isTrue(g.public)).map((g) => ({ name: String(g.name ?? ''), monitor_ids: monitorsOf.get(Number(g.id)) ?? [] })),
      incidents: incidents.filter((i) => Number(i.status_page_id) === id && isTrue(i.active)).length,
    };
  });
}

function rows(db: Database, sql: string): Row[] {
  return db.exec(sql).flatMap(({ columns, values }) => values.map((v) => Object.fromEntries(columns.map((c, i) => [c, v[i]]))));
}

const byId = (list: Row[]) => new Map(list.map((r) => [Number(r.id), r]));

function groupBy<T>(list: Row[], key: string, value: (r: Row) => T): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const r of list) {
    const id = numberAt(r[key]);
    if (id === undefined) continue;
    out.set(id, [...(out.get(id) ?? []), value(r)]);
  }
  return out;
}

function statusCodes(json: unknown): string[] {
  const parsed = parsedJson(json);
  return Array.isArray(parsed) ? parsed.map(String) : ['200-299'];
}

const objectOf = (v: unknown): Row => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Row) : {});
