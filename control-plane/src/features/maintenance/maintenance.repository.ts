import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tx } from '../../db/tx.js';
import { isOpenAt, type WindowTiming } from './maintenance-schedule.js';

interface WindowFields {
  name: string;
  /** Empty: every service of the organization. */
  serviceIds: string[];
  /** The status pages that announce it. */
  statusPageIds: string[];
  announceHoursBefore: number;
}

export type NewWindow = { id: string; organizationId: string } & WindowFields & WindowTiming;
export type MaintenanceWindow = NewWindow & { createdAt: Date; updatedAt: Date };

export interface MaintenanceRepository {
  insert(w: NewWindow): Promise<MaintenanceWindow>;
  find(organizationId: string, id: string): Promise<MaintenanceWindow | null>;
  list(organizationId: string): Promise<MaintenanceWindow[]>;
  update(id: string, w: WindowFields & WindowTiming): Promise<MaintenanceWindow>;
  delete(id: string): Promise<void>;
  /** The windows of each organization open at `at`, read inside the ingest transaction. */
  activeFor(tx: Tx, organizationIds: string[], at: Date): Promise<Map<string, MaintenanceWindow[]>>;
  /** The windows a status page announces. */
  forPage(statusPageId: string): Promise<MaintenanceWindow[]>;
  /** Every window announced on some status page (few: the announcement job reads them all). */
  announced(tx?: Tx): Promise<MaintenanceWindow[]>;
}

const COLUMNS = 'id, organization_id, name, starts_at, ends_at, schedule, timezone, duration_minutes, service_ids, status_page_ids, announce_hours_before, created_at, updated_at';

const timingParams = (w: WindowTiming) => [w.startsAt?.toISOString() ?? null, w.endsAt?.toISOString() ?? null, w.schedule, w.timezone, w.durationMinutes];

export function createMaintenanceRepository(em: () => EntityManager): MaintenanceRepository {
  const run = (sql: string, params: unknown[], tx: EntityManager = em()) => tx.execute<Record<string, unknown>[]>(sql, params);
  return {
    async insert(w) {
      const [row] = await run(
        `insert into maintenance_windows (id, organization_id, name, starts_at, ends_at, schedule, timezone, duration_minutes, service_ids, status_page_ids, announce_hours_before)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?) returning ${COLUMNS}`,
        [w.id, w.organizationId, w.name, ...timingParams(w), JSON.stringify(w.serviceIds), JSON.stringify(w.statusPageIds), w.announceHoursBefore],
      );
      return fromRow(row!);
    },
    async find(organizationId, id) {
      const [row] = await run(`select ${COLUMNS} from maintenance_windows where id = ? and organization_id = ?`, [id, organizationId]);
      return row ? fromRow(row) : null;
    },
    async list(organizationId) {
      // One-off windows by start, then recurring ones in the order they were made.
      return (await run(`select ${COLUMNS} from maintenance_windows where organization_id = ? order by starts_at nulls last, created_at, id`, [organizationId])).map(fromRow);
    },
    async update(id, w) {
      const [row] = await run(
        `update maintenance_windows set name = ?, starts_at = ?, ends_at = ?, schedule = ?, timezone = ?, duration_minutes = ?, service_ids = ?::jsonb,
                status_page_ids = ?::jsonb, announce_hours_before = ?, updated_at = now()
         where id = ? returning ${COLUMNS}`,
        [w.name, ...timingParams(w), JSON.stringify(w.serviceIds), JSON.stringify(w.statusPageIds), w.announceHoursBefore, id],
      );
      return fromRow(row!);
    },
    async delete(id) {
      await run('delete from maintenance_windows where id = ?', [id]);
    },
    async forPage(statusPageId) {
      return (await run(`select ${COLUMNS} from maintenance_windows where status_page_ids @> ?::jsonb order by starts_at nulls last, created_at, id`, [JSON.stringify([statusPageId])])).map(fromRow);
    },
    async announced(tx) {
      return (await run(`select ${COLUMNS} from maintenance_windows where status_page_ids <> '[]'::jsonb`, [], tx)).map(fromRow);
    },
    async activeFor(tx, organizationIds, at) {
      // SQL settles one-off windows; only the recurring windows of these organizations cost a
      // cron step each (tens of microseconds), inside the ingest transaction.
      const rows = await run(
        `select ${COLUMNS} from maintenance_windows
         where organization_id = any(?::uuid[]) and (schedule is not null or (starts_at <= ? and ends_at > ?))`,
        [`{${organizationIds.join(',')}}`, at.toISOString(), at.toISOString()],
        tx,
      );
      const windows = new Map<string, MaintenanceWindow[]>();
      for (const w of rows.map(fromRow)) {
        if (w.schedule !== null && !isOpenAt(w, at)) continue;
        const list = windows.get(w.organizationId);
        if (list) list.push(w);
        else windows.set(w.organizationId, [w]);
      }
      return windows;
    },
  };
}

export function coversService(windows: MaintenanceWindow[], serviceId: string): boolean {
  return windows.some((w) => w.serviceIds.length === 0 || w.serviceIds.includes(serviceId));
}

function fromRow(r: Record<string, unknown>): MaintenanceWindow {
  const base = {
    id: String(r.id),
    organizationId: String(r.organization_id),
    name: String(r.name),
    serviceIds: (r.service_ids ?? []) as string[],
    statusPageIds: (r.status_page_ids ?? []) as string[],
    announceHoursBefore: Number(r.announce_hours_before),
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
  // The table's check constraint keeps exactly one form.
  if (r.schedule === null || r.schedule === undefined) {
    return { ...base, startsAt: new Date(r.starts_at as string), endsAt: new Date(r.ends_at as string), schedule: null, timezone: null, durationMinutes: null };
  }
  return { ...base, startsAt: null, endsAt: null, schedule: String(r.schedule), timezone: String(r.timezone), durationMinutes: Number(r.duration_minutes) };
}
