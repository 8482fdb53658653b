// Incidents and their updates in SQL. The incident row keeps what its timeline says now
// (status, affected, resolved_at), rewritten from the updates after every change to them.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tx } from '../../db/tx.js';
import { summarize, type Affected, type Incident, type IncidentImpact, type IncidentStatus, type IncidentUpdate } from './incident.js';
import { jsonColumn } from '../../db/json-column.js';

export interface NewIncident {
  id: string;
  organizationId: string;
  statusPageId: string;
  title: string;
  impact: IncidentImpact;
  alertId: string | null;
  startsAt: Date;
  firstUpdate: NewUpdate;
}

export interface NewUpdate {
  id: string;
  status: IncidentStatus;
  message: string;
  affected: Affected[] | null;
}

export interface IncidentPage {
  statusPageId: string;
  status: 'open' | 'resolved' | 'all';
  limit: number;
  before?: Date;
  /** Only incidents that started, or resolved, at or after this time. */
  since?: Date;
}

export interface IncidentsRepository {
  insert(tx: Tx, incident: NewIncident): Promise<void>;
  find(statusPageId: string, id: string, tx?: Tx): Promise<Incident | null>;
  list(page: IncidentPage): Promise<Incident[]>;
  /** The open incidents of these pages, oldest first. */
  openFor(statusPageIds: string[]): Promise<Incident[]>;
  updateFields(tx: Tx, id: string, fields: { title: string; impact: IncidentImpact; startsAt: Date }): Promise<void>;
  addUpdate(tx: Tx, incidentId: string, update: NewUpdate): Promise<void>;
  editUpdate(tx: Tx, incidentId: string, updateId: string, fields: { status: IncidentStatus; message: string }): Promise<boolean>;
  deleteUpdate(tx: Tx, incidentId: string, updateId: string): Promise<boolean>;
  /** Rewrites the incident's status, affected list and resolution from its updates. */
  resummarize(tx: Tx, incidentId: string): Promise<void>;
  delete(id: string): Promise<void>;
  /** Alerts these pages' open incidents were written from: not shown twice. */
  writtenAlertIds(statusPageId: string): Promise<Set<string>>;
}

const affectedJson = (a: Affected[] | null) => (a === null ? null : JSON.stringify(a.map((x) => ({ service_id: x.serviceId, impact: x.impact }))));

// The incidents with their updates and the names of their affected services, in one query.
const SELECT = `
  select i.*,
         coalesce((select json_agg(json_build_object('id', u.id, 'status', u.status, 'message', u.message, 'affected', u.affected,
                                                     'created_at', u.created_at, 'updated_at', u.updated_at) order by u.created_at, u.id)
                     from status_page_incident_updates u where u.incident_id = i.id), '[]') as updates,
         coalesce((select json_agg(json_build_object('service_id', s.id, 'service_name', s.name, 'impact', a.value ->> 'impact') order by a.ordinality)
                     from jsonb_array_elements(i.affected) with ordinality a join services s on s.id = (a.value ->> 'service_id')::uuid), '[]') as affected_named
    from status_page_incidents i`;

export function createIncidentsRepository(em: () => EntityManager): IncidentsRepository {
  const run = (sql: string, params: unknown[], tx: EntityManager = em()) => tx.execute<Record<string, unknown>[]>(sql, params);

  const insertUpdate = (tx: Tx, incidentId: string, u: NewUpdate) =>
    run('insert into status_page_incident_updates (id, incident_id, status, message, affected) values (?, ?, ?, ?, ?::jsonb)', [u.id, incidentId, u.status, u.message, affectedJson(u.affected)], tx);

  const repo: IncidentsRepository = {
    async insert(tx, i) {
      await run(
        `insert into status_page_incidents (id, organization_id, status_page_id, title, status, impact, affected, alert_id, starts_at)
         values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)`,
        [i.id, i.organizationId, i.statusPageId, i.title, i.firstUpdate.status, i.impact, affectedJson(i.firstUpdate.affected ?? []), i.alertId, i.startsAt.toISOString()],
        tx,
      );
      await insertUpdate(tx, i.id, { ...i.firstUpdate, affected: i.firstUpdate.affected ?? [] });
      await repo.resummarize(tx, i.id);
    },
    async find(statusPageId, id, tx) {
      const [row] = await run(`${SELECT} where i.id = ? and i.status_page_id = ?`, [id, statusPageId], tx);
      return row ? fromRow(row) : null;
    },
    async list({ statusPageId, status, limit, before, since }) {
      const where = ['i.status_page_id = ?'];
      const params: unknown[] = [statusPageId];
      if (status === 'open') where.push('i.resolved_at is null');
      if (status === 'resolved') where.push('i.resolved_at is not null');
      if (before) (where.push('i.starts_at < ?'), params.push(before.toISOString()));
      if (since) (where.push('(i.starts_at >= ? or i.resolved_at >= ?)'), params.push(since.toISOString(), since.toISOString()));
      return (await run(`${SELECT} where ${where.join(' and ')} order by i.starts_at desc, i.id limit ${limit}`, params)).map(fromRow);
    },
    async openFor(statusPageIds) {
      if (statusPageIds.length === 0) return [];
      return (await run(`${SELECT} where i.status_page_id = any(?::uuid[]) and i.resolved_at is null order by i.starts_at, i.id`, [`{${statusPageIds.join(',')}}`])).map(fromRow);
    },
    async updateFields(tx, id, f) {
      await run('update status_page_incidents set title = ?, impact = ?, starts_at = ?, updated_at = now() where id = ?', [f.title, f.impact, f.startsAt.toISOString(), id], tx);
    },
    async addUpdate(tx, incidentId, u) {
      await insertUpdate(tx, incidentId, u);
      await repo.resummarize(tx, incidentId);
    },
    async editUpdate(tx, incidentId, updateId, f) {
      const rows = await run('update status_page_incident_updates set status = ?, message = ?, updated_at = now() where id = ? and incident_id = ? returning id', [f.status, f.message, updateId, incidentId], tx);
      if (rows.length === 0) return false;
      await repo.resummarize(tx, incidentId);
      return true;
    },
    async deleteUpdate(tx, incidentId, updateId) {
      const rows = await run('delete from status_page_incident_updates where id = ? and incident_id = ? returning id', [updateId, incidentId], tx);
      if (rows.length === 0) return false;
      await repo.resummarize(tx, incidentId);
      return true;
    },
    async resummarize(tx, incidentId) {
      const rows = await run('select id, status, message, affected, created_at, updated_at from status_page_incident_updates where incident_id = ? order by created_at, id', [incidentId], tx);
      if (rows.length === 0) return;
      const now = summarize(rows.map(updateFromRow));
      await run('update status_page_incidents set status = ?, affected = ?::jsonb, resolved_at = ?, updated_at = now() where id = ?', [now.status, affectedJson(now.affected), now.resolvedAt?.toISOString() ?? null, incidentId], tx);
    },
    async delete(id) {
      await run('delete from status_page_incidents where id = ?', [id]);
    },
    async writtenAlertIds(statusPageId) {
      const rows = await run('select alert_id from status_page_incidents where status_page_id = ? and alert_id is not null and resolved_at is null', [statusPageId]);
      return new Set(rows.map((r) => String(r.alert_id)));
    },
  };
  return repo;
}

const affectedFrom = (v: unknown): Affected[] | null => (v == null ? null : jsonColumn<{ service_id: string; impact: IncidentImpact }[]>(v).map((a) => ({ serviceId: a.service_id, impact: a.impact })));

function updateFromRow(r: Record<string, unknown>): IncidentUpdate {
  return {
    id: String(r.id),
    status: r.status as IncidentStatus,
    message: String(r.message),
    affected: affectedFrom(r.affected),
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}

function fromRow(r: Record<string, unknown>): Incident {
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    statusPageId: String(r.status_page_id),
    title: String(r.title),
    status: r.status as IncidentStatus,
    impact: r.impact as IncidentImpact,
    affected: jsonColumn<{ service_id: string; service_name: string; impact: IncidentImpact }[]>(r.affected_named).map((a) => ({ serviceId: a.service_id, serviceName: a.service_name, impact: a.impact })),
    alertId: (r.alert_id as string | null) ?? null,
    startsAt: new Date(r.starts_at as string),
    resolvedAt: r.resolved_at ? new Date(r.resolved_at as string) : null,
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
    updates: jsonColumn<Record<string, unknown>[]>(r.updates).map(updateFromRow),
  };
}
