import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tx } from '../../db/tx.js';

export interface MaintenanceWindow {
  id: string;
  organizationId: string;
  name: string;
  startsAt: Date;
  endsAt: Date;
  serviceIds: string[];
  createdAt: Date;
  updatedAt: Date;
}

export interface MaintenanceRepository {
  insert(w: Omit<MaintenanceWindow, 'createdAt' | 'updatedAt'>): Promise<MaintenanceWindow>;
  find(organizationId: string, id: string): Promise<MaintenanceWindow | null>;
  list(organizationId: string): Promise<MaintenanceWindow[]>;
  update(id: string, w: Pick<MaintenanceWindow, 'name' | 'startsAt' | 'endsAt' | 'serviceIds'>): Promise<MaintenanceWindow>;
  delete(id: string): Promise<void>;
  /** The windows of each organization open at `at`, read inside the ingest transaction. */
  activeFor(tx: Tx, organizationIds: string[], at: Date): Promise<Map<string, MaintenanceWindow[]>>;
}

const COLUMNS = 'id, organization_id, name, starts_at, ends_at, service_ids, created_at, updated_at';

export function createMaintenanceRepository(em: () => EntityManager): MaintenanceRepository {
  const run = (sql: string, params: unknown[], tx: EntityManager = em()) => tx.execute<Record<string, unknown>[]>(sql, params);
  return {
    async insert(w) {
      const [row] = await run(`insert into maintenance_windows (id, organization_id, name, starts_at, ends_at, service_ids) values (?, ?, ?, ?, ?, ?::jsonb) returning ${COLUMNS}`, [
        w.id, w.organizationId, w.name, w.startsAt.toISOString(), w.endsAt.toISOString(), JSON.stringify(w.serviceIds),
      ]);
      return fromRow(row!);
    },
    async find(organizationId, id) {
      const [row] = await run(`select ${COLUMNS} from maintenance_windows where id = ? and organization_id = ?`, [id, organizationId]);
      return row ? fromRow(row) : null;
    },
    async list(organizationId) {
      return (await run(`select ${COLUMNS} from maintenance_windows where organization_id = ? order by starts_at, id`, [organizationId])).map(fromRow);
    },
    async update(id, w) {
      const [row] = await run(`update maintenance_windows set name = ?, starts_at = ?, ends_at = ?, service_ids = ?::jsonb, updated_at = now() where id = ? returning ${COLUMNS}`, [
        w.name, w.startsAt.toISOString(), w.endsAt.toISOString(), JSON.stringify(w.serviceIds), id,
      ]);
      return fromRow(row!);
    },
    async delete(id) {
      await run('delete from maintenance_windows where id = ?', [id]);
    },
    async activeFor(tx, organizationIds, at) {
      const rows = await run(`select ${COLUMNS} from maintenance_windows where organization_id = any(?::uuid[]) and starts_at <= ? and ends_at > ?`, [
        `{${organizationIds.join(',')}}`, at.toISOString(), at.toISOString(),
      ], tx);
      const windows = new Map<string, MaintenanceWindow[]>();
      for (const w of rows.map(fromRow)) {
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
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    name: String(r.name),
    startsAt: new Date(r.starts_at as string),
    endsAt: new Date(r.ends_at as string),
    serviceIds: (r.service_ids ?? []) as string[],
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}
