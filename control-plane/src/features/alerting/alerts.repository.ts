// Alerts in SQL. Opening relies on the partial unique index (one open alert per rule and
// service), so concurrent ingests on any number of replicas cannot open two.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tx } from '../../db/tx.js';
import type { Alert, AlertKind, AlertStatus } from './alert.js';
import type { ServiceFacts } from '../notifications/delivery.js';

export type NewAlert = Omit<Alert, 'status' | 'acknowledgedAt' | 'acknowledgedBy' | 'resolvedAt' | 'resolvedBy' | 'updatedAt' | 'lastFiredAt'>;

/** A service back to GREEN, and for how many results in a row: rules may want several. */
export interface Recovery {
  serviceId: string;
  greenStreak: number;
}

export interface AlertFilters {
  statuses: AlertStatus[];
  serviceId?: string;
  limit: number;
}

export interface AlertsRepository {
  /** Opens each alert (of a service) unless one is open for its (rule, service, kind); answers only the new ones. */
  open(tx: Tx, alerts: NewAlert[]): Promise<Alert[]>;
  /** Resolves the status alerts of recovered services whose rule's recovery_threshold the GREEN streak reached. */
  resolveRecovered(tx: Tx, recoveries: Recovery[], at: Date): Promise<Alert[]>;
  /** Resolves the open alerts of these kinds of these services. */
  resolveOfKind(tx: Tx, serviceIds: string[], kind: AlertKind, at: Date): Promise<Alert[]>;
  /** The open alerts of these services' statuses. */
  openOfServices(tx: Tx, serviceIds: string[]): Promise<Alert[]>;
  list(organizationId: string, filters: AlertFilters): Promise<Alert[]>;
  find(organizationId: string, alertId: string): Promise<Alert | null>;
  /** Moves an alert from one of `from` to `to`; null when it was in none of them. */
  transition(tx: Tx, organizationId: string, alertId: string, from: AlertStatus[], to: 'acknowledged' | 'resolved', userId: string, at: Date): Promise<Alert | null>;
  /** How many alerts each organization opened since `since` (storm detection). */
  countOpenedSince(tx: Tx, organizationIds: string[], since: Date): Promise<Map<string, number>>;
  findInTx(tx: Tx, alertId: string): Promise<Alert | null>;
  findManyInTx(tx: Tx, alertIds: string[]): Promise<Alert[]>;
  /** What a notice tells of the alert's service: its facts, and the locations it is checked from. */
  noticeFacts(tx: Tx, alert: Alert): Promise<{ service: ServiceFacts | null; locations?: string[] }>;
}

export function createAlertsRepository(em: () => EntityManager): AlertsRepository {
  return {
    async open(tx, alerts) {
      if (alerts.length === 0) return [];
      // One JSON parameter, however many alerts an outage opens at once.
      const rows = await tx.execute<Record<string, unknown>[]>(
        `insert into alerts (id, organization_id, kind, service_id, service_name, alert_rule_id, severity, title, message, status, fired_at, last_fired_at, updated_at, remind_at)
         select id, organization_id, kind, service_id, service_name, alert_rule_id, severity, title, message, 'firing', fired_at, fired_at, fired_at, remind_at
           from json_to_recordset(?::json) as v (id uuid, organization_id uuid, kind text, service_id uuid, service_name text, alert_rule_id uuid, severity text,
             title text, message text, fired_at timestamptz, remind_at timestamptz)
         on conflict (alert_rule_id, service_id, kind) where status in ('firing', 'acknowledged')
         do update set last_fired_at = excluded.last_fired_at
         returning *, (xmax = 0) as inserted`,
        [
          JSON.stringify(
            alerts.map((a) => ({
              id: a.id, organization_id: a.organizationId, kind: a.kind, service_id: a.serviceId, service_name: a.serviceName, alert_rule_id: a.alertRuleId,
              severity: a.severity, title: a.title, message: a.message, fired_at: a.firedAt.toISOString(), remind_at: a.remindAt?.toISOString() ?? null,
            })),
          ),
        ],
      );
      return rows.filter((r) => r.inserted).map(alertFromRow);
    },

    async resolveRecovered(tx, recoveries, at) {
      if (recoveries.length === 0) return [];
      // A rule deleted meanwhile asks for nothing more than one GREEN result.
      const rows = await tx.execute<Record<string, unknown>[]>(
        `update alerts a set status = 'resolved', resolved_at = ?, resolved_by = null, updated_at = ?, remind_at = null
           from json_to_recordset(?::json) as v (service_id uuid, green_streak int)
          where a.service_id = v.service_id and a.kind = 'service' and a.status in ('firing', 'acknowledged')
            and coalesce((select (r.condition->>'recovery_threshold')::int from alert_rules r where r.id = a.alert_rule_id), 1) <= v.green_streak
          returning a.*`,
        [at.toISOString(), at.toISOString(), JSON.stringify(recoveries.map((r) => ({ service_id: r.serviceId, green_streak: r.greenStreak })))],
      );
      return rows.map(alertFromRow);
    },

    async resolveOfKind(tx, serviceIds, kind, at) {
      if (serviceIds.length === 0) return [];
      const rows = await tx.execute<Record<string, unknown>[]>(
        `update alerts set status = 'resolved', resolved_at = ?, resolved_by = null, updated_at = ?, remind_at = null
          where service_id = any(?::uuid[]) and kind = ? and status in ('firing', 'acknowledged') returning *`,
        [at.toISOString(), at.toISOString(), `{${serviceIds.join(',')}}`, kind],
      );
      return rows.map(alertFromRow);
    },

    async openOfServices(tx, serviceIds) {
      if (serviceIds.length === 0) return [];
      const rows = await tx.execute<Record<string, unknown>[]>(
        `select * from alerts where service_id = any(?::uuid[]) and kind = 'service' and status in ('firing', 'acknowledged')`,
        [`{${serviceIds.join(',')}}`],
      );
      return rows.map(alertFromRow);
    },

    async list(organizationId, { statuses, serviceId, limit }) {
      const params: unknown[] = [organizationId, ...statuses];
      let where = `organization_id = ? and status in (${statuses.map(() => '?').join(',')})`;
      if (serviceId) {
        where += ' and service_id = ?';
        params.push(serviceId);
      }
      const rows = await em().execute<Record<string, unknown>[]>(`select * from alerts where ${where} order by fired_at desc, id limit ?`, [...params, limit]);
      return rows.map(alertFromRow);
    },

    async find(organizationId, alertId) {
      const [row] = await em().execute<Record<string, unknown>[]>('select * from alerts where id = ? and organization_id = ?', [alertId, organizationId]);
      return row ? alertFromRow(row) : null;
    },

    async transition(tx, organizationId, alertId, from, to, userId, at) {
      const who = to === 'acknowledged' ? 'acknowledged' : 'resolved';
      // Neither an acknowledged nor a resolved alert is reminded of.
      const [row] = await tx.execute<Record<string, unknown>[]>(
        `update alerts set status = ?, ${who}_at = ?, ${who}_by = ?, updated_at = ?, remind_at = null
          where id = ? and organization_id = ? and status in (${from.map(() => '?').join(',')}) returning *`,
        [to, at.toISOString(), userId, at.toISOString(), alertId, organizationId, ...from],
      );
      return row ? alertFromRow(row) : null;
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
      return row ? alertFromRow(row) : null;
    },

    async findManyInTx(tx, alertIds) {
      if (alertIds.length === 0) return [];
      return (await tx.execute<Record<string, unknown>[]>('select * from alerts where id = any(?::uuid[])', [`{${alertIds.join(',')}}`])).map(alertFromRow);
    },

    async noticeFacts(tx, { serviceId, location }) {
      // An agent's or a location's alert has no service: its location is the fact.
      if (serviceId === null) return { service: null, ...(location ? { locations: [location] } : {}) };
      const [row] = await tx.execute<(ServiceFacts & { locations: string[] })[]>('select id, name, endpoint, status, locations from services where id = ?', [serviceId]);
      if (!row) return { service: null };
      const { locations, ...service } = row;
      return { service, locations };
    },
  };
}

export function alertFromRow(r: Record<string, unknown>): Alert {
  const date = (v: unknown) => (v ? new Date(v as string) : null);
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    kind: (r.kind as AlertKind | undefined) ?? 'service',
    serviceId: (r.service_id as string | null) ?? null,
    serviceName: String(r.service_name),
    alertRuleId: (r.alert_rule_id as string | null) ?? null,
    agentId: (r.agent_id as string | null) ?? null,
    location: (r.location as string | null) ?? null,
    silencedBy: (r.silenced_by as string | null) ?? null,
    remindAt: r.remind_at ? new Date(r.remind_at as string) : null,
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
