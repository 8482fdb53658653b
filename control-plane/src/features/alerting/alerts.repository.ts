// Alerts in SQL. Opening relies on the partial unique index (one open alert per rule and
// service), so concurrent ingests on any number of replicas cannot open two.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tx } from '../../db/tx.js';
import type { Alert, AlertStatus } from './alert.js';
import type { ServiceFacts } from '../notifications/delivery.js';

export type NewAlert = Omit<Alert, 'status' | 'acknowledgedAt' | 'acknowledgedBy' | 'resolvedAt' | 'resolvedBy' | 'updatedAt' | 'lastFiredAt'>;

export interface AlertFilters {
  statuses: AlertStatus[];
  serviceId?: string;
  limit: number;
}

export interface AlertsRepository {
  /** Opens each alert unless one is open for its (rule, service); answers only the new ones. */
  open(tx: Tx, alerts: NewAlert[]): Promise<Alert[]>;
  resolveOpen(tx: Tx, serviceIds: string[], at: Date): Promise<Alert[]>;
  list(organizationId: string, filters: AlertFilters): Promise<Alert[]>;
  find(organizationId: string, alertId: string): Promise<Alert | null>;
  /** Moves an alert from one of `from` to `to`; null when it was in none of them. */
  transition(tx: Tx, organizationId: string, alertId: string, from: AlertStatus[], to: 'acknowledged' | 'resolved', userId: string, at: Date): Promise<Alert | null>;
  /** How many alerts each organization opened since `since` (storm detection). */
  countOpenedSince(tx: Tx, organizationIds: string[], since: Date): Promise<Map<string, number>>;
  findInTx(tx: Tx, alertId: string): Promise<Alert | null>;
  /** What a notice tells of the alert's service: its facts, and the locations it is checked from. */
  noticeFacts(tx: Tx, serviceId: string): Promise<{ service: ServiceFacts | null; locations?: string[] }>;
}

export function createAlertsRepository(em: () => EntityManager): AlertsRepository {
  return {
    async open(tx, alerts) {
      if (alerts.length === 0) return [];
      // One JSON parameter, however many alerts an outage opens at once.
      const rows = await tx.execute<Record<string, unknown>[]>(
        `insert into alerts (id, organization_id, service_id, service_name, alert_rule_id, severity, title, message, status, fired_at, last_fired_at, updated_at)
         select id, organization_id, service_id, service_name, alert_rule_id, severity, title, message, 'firing', fired_at, fired_at, fired_at
           from json_to_recordset(?::json) as v (id uuid, organization_id uuid, service_id uuid, service_name text, alert_rule_id uuid, severity text,
             title text, message text, fired_at timestamptz)
         on conflict (alert_rule_id, service_id) where status in ('firing', 'acknowledged')
         do update set last_fired_at = excluded.last_fired_at
         returning *, (xmax = 0) as inserted`,
        [
          JSON.stringify(
            alerts.map((a) => ({
              id: a.id, organization_id: a.organizationId, service_id: a.serviceId, service_name: a.serviceName, alert_rule_id: a.alertRuleId,
              severity: a.severity, title: a.title, message: a.message, fired_at: a.firedAt.toISOString(),
            })),
          ),
        ],
      );
      return rows.filter((r) => r.inserted).map(fromRow);
    },

    async resolveOpen(tx, serviceIds, at) {
      if (serviceIds.length === 0) return [];
      const rows = await tx.execute<Record<string, unknown>[]>(
        `update alerts set status = 'resolved', resolved_at = ?, resolved_by = null, updated_at = ?
          where service_id = any(?::uuid[]) and status in ('firing', 'acknowledged') returning *`,
        [at.toISOString(), at.toISOString(), `{${serviceIds.join(',')}}`],
      );
      return rows.map(fromRow);
    },

    async list(organizationId, { statuses, serviceId, limit }) {
      const params: unknown[] = [organizationId, ...statuses];
      let where = `organization_id = ? and status in (${statuses.map(() => '?').join(',')})`;
      if (serviceId) {
        where += ' and service_id = ?';
        params.push(serviceId);
      }
      const rows = await em().execute<Record<string, unknown>[]>(`select * from alerts where ${where} order by fired_at desc, id limit ?`, [...params, limit]);
      return rows.map(fromRow);
    },

    async find(organizationId, alertId) {
      const [row] = await em().execute<Record<string, unknown>[]>('select * from alerts where id = ? and organization_id = ?', [alertId, organizationId]);
      return row ? fromRow(row) : null;
    },

    async transition(tx, organizationId, alertId, from, to, userId, at) {
      const who = to === 'acknowledged' ? 'acknowledged' : 'resolved';
      const [row] = await tx.execute<Record<string, unknown>[]>(
        `update alerts set status = ?, ${who}_at = ?, ${who}_by = ?, updated_at = ?
          where id = ? and organization_id = ? and status in (${from.map(() => '?').join(',')}) returning *`,
        [to, at.toISOString(), userId, at.toISOString(), alertId, organizationId, ...from],
      );
      return row ? fromRow(row) : null;
    },

    async countOpenedSince(tx, organizationIds, since) {
      const rows = await tx.execute<{ organization_id: string; n: string }[]>(
        'select organization_id, count(*) as n from alerts where organization_id = any(?::uuid[]) and fired_at >= ? group by organization_id',
        [`{${organizationIds.join(',')}}`, since.toISOString()],
      );
      return new Map(rows.map((r) => [r.organization_id, Number(r.n)]));
    },

    async findInTx(tx, alertId) {
      const [row] = await tx.execute<Record<string, unknown>[]>('select * from alerts where id = ?', [alertId]);
      return row ? fromRow(row) : null;
    },

    async noticeFacts(tx, serviceId) {
      const [row] = await tx.execute<(ServiceFacts & { locations: string[] })[]>('select id, name, endpoint, status, locations from services where id = ?', [serviceId]);
      if (!row) return { service: null };
      const { locations, ...service } = row;
      return { service, locations };
    },
  };
}

function fromRow(r: Record<string, unknown>): Alert {
  const date = (v: unknown) => (v ? new Date(v as string) : null);
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    serviceId: String(r.service_id),
    serviceName: String(r.service_name),
    alertRuleId: String(r.alert_rule_id),
    severity: r.severity as Alert['severity'],
    title: String(r.title),
    message: String(r.message),
    status: r.status as AlertStatus,
    firedAt: new Date(r.fired_at as string),
    lastFiredAt: new Date(r.last_fired_at as string),
    acknowledgedAt: date(r.acknowledged_at),
    acknowledgedBy: (r.acknowledged_by as string | null) ?? null,
    resolvedAt: date(r.resolved_at),
    resolvedBy: (r.resolved_by as string | null) ?? null,
    updatedAt: new Date(r.updated_at as string),
  };
}
