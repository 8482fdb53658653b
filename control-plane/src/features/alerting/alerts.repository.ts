// Alerts in SQL. Opening relies on the partial unique index (one open alert per rule and
// service), so concurrent ingests on any number of replicas cannot open two.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tx } from '../../db/tx.js';
import type { Alert, AlertStatus } from './alert.js';
import type { NotificationTargets } from '../notifications/delivery.js';

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
  /** Opened in the organization since `since` (storm detection). */
  countOpenedSince(tx: Tx, organizationId: string, since: Date): Promise<number>;
  /** Channels that were told an alert fired, so they also hear how it ends. */
  /** The channels and people that heard the alert open: they hear how it ends. */
  notifiedTargets(tx: Tx, alertId: string): Promise<NotificationTargets>;
  findInTx(tx: Tx, alertId: string): Promise<Alert | null>;
  serviceFacts(tx: Tx, serviceId: string): Promise<{ id: string; name: string; endpoint: string; status: string | null } | null>;
}

export function createAlertsRepository(em: () => EntityManager): AlertsRepository {
  return {
    async open(tx, alerts) {
      if (alerts.length === 0) return [];
      const rows = await tx.execute<Record<string, unknown>[]>(
        `insert into alerts (id, organization_id, service_id, service_name, alert_rule_id, severity, title, message, status, fired_at, last_fired_at, updated_at)
         values ${alerts.map(() => "(?, ?, ?, ?, ?, ?, ?, ?, 'firing', ?, ?, ?)").join(',')}
         on conflict (alert_rule_id, service_id) where status in ('firing', 'acknowledged')
         do update set last_fired_at = excluded.last_fired_at
         returning *, (xmax = 0) as inserted`,
        alerts.flatMap((a) => [a.id, a.organizationId, a.serviceId, a.serviceName, a.alertRuleId, a.severity, a.title, a.message, a.firedAt.toISOString(), a.firedAt.toISOString(), a.firedAt.toISOString()]),
      );
      return rows.filter((r) => r.inserted).map(fromRow);
    },

    async resolveOpen(tx, serviceIds, at) {
      if (serviceIds.length === 0) return [];
      const rows = await tx.execute<Record<string, unknown>[]>(
        `update alerts set status = 'resolved', resolved_at = ?, resolved_by = null, updated_at = ?
          where service_id in (${serviceIds.map(() => '?').join(',')}) and status in ('firing', 'acknowledged') returning *`,
        [at.toISOString(), at.toISOString(), ...serviceIds],
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

    async countOpenedSince(tx, organizationId, since) {
      const [row] = await tx.execute<{ n: string }[]>('select count(*) as n from alerts where organization_id = ? and fired_at >= ?', [organizationId, since.toISOString()]);
      return Number(row?.n ?? 0);
    },

    async notifiedTargets(tx, alertId) {
      const rows = await tx.execute<{ channel_id: string | null; recipient: string | null }[]>(
        "select distinct channel_id, recipient from deliveries where alert_id = ? and event = 'alert_fired'",
        [alertId],
      );
      return {
        channels: rows.flatMap((r) => (r.channel_id ? [r.channel_id] : [])),
        teams: [],
        recipients: rows.flatMap((r) => (r.recipient ? [r.recipient] : [])),
      };
    },

    async findInTx(tx, alertId) {
      const [row] = await tx.execute<Record<string, unknown>[]>('select * from alerts where id = ?', [alertId]);
      return row ? fromRow(row) : null;
    },

    async serviceFacts(tx, serviceId) {
      const [row] = await tx.execute<{ id: string; name: string; endpoint: string; status: string | null }[]>('select id, name, endpoint, status from services where id = ?', [serviceId]);
      return row ?? null;
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
