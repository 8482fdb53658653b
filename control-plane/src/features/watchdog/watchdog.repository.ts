// The watchdog's reads and writes of services and alerts: where organizations are checked
// from, which services are overdue, marking them stale, and the alerts of silent agents, dark
// locations and missing data (the alerting repository opens only a service's status alerts).
// Each is one statement whatever the number of rows.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tx } from '../../db/tx.js';
import type { Alert } from '../alerting/alert.js';
import { alertFromRow, type NewAlert } from '../alerting/alerts.repository.js';
import type { Place } from './sighting.js';
import { MIN_STALE_MS, type WatchedService } from './stale-services.js';

export interface UnstaleService {
  id: string;
  organizationId: string;
  name: string;
  lastResultAt: Date | null;
}

export interface WatchdogRepository {
  /** The organizations' unpaused services at these locations, one place per (organization, location). */
  places(tx: Tx, locations: string[]): Promise<Place[]>;
  /** Services to look at now: overdue or checked from a dark location and not stale yet, or stale and overdue in an organization with a no_data rule. */
  watched(tx: Tx, now: Date, notBefore: Date, dark: { organizationId: string; location: string }[]): Promise<WatchedService[]>;
  /** Marks stale those still without a newer result than the one read; answers their ids. */
  markStale(tx: Tx, services: { id: string; lastResultAt: Date | null }[]): Promise<Set<string>>;
  /** Stale services that are no longer checked (paused, or without locations) are stale no more. */
  unstaleUnchecked(tx: Tx): Promise<UnstaleService[]>;
  openWatchAlerts(tx: Tx): Promise<Alert[]>;
  /** Opens these alerts unless one like it is open (the partial unique indexes); answers the new ones. */
  open(tx: Tx, alerts: NewAlert[]): Promise<Alert[]>;
  resolve(tx: Tx, alertIds: string[], at: Date): Promise<Alert[]>;
  /** The earliest moment after `after` a service checked from somewhere becomes stale. */
  nextStale(after: Date, notBefore: Date): Promise<Date | null>;
}

// When a service is stale without a result: three intervals (at least MIN_STALE_MS) after the
// latest of its last result, its last change, this control plane's start (the parameter) and
// the last connection of an agent serving it at one of its locations.
const DUE = `connects as (select location, organization_id, max(connected_at) as at from agent_sightings group by location, organization_id),
  reach as (
    select s.id, max(c.at) as at
      from services s cross join lateral jsonb_array_elements_text(s.locations) as l (location)
      join connects c on c.location = l.location and (c.organization_id is null or c.organization_id = s.organization_id)
     where not s.paused group by s.id),
  due as (
    select s.id, greatest(s.last_checked_at, s.updated_at, ?::timestamptz, r.at) + make_interval(secs => greatest(3 * s.check_interval_seconds, ${MIN_STALE_MS / 1000})) as due_at
      from services s left join reach r on r.id = s.id
     where not s.paused and jsonb_array_length(s.locations) > 0)`;

// Not yet stale and overdue or darkened; or stale, overdue, and in an organization with a no_data rule.
const WATCHED_SQL = `with ${DUE}, dark as (select * from json_to_recordset(?::json) as d (organization_id uuid, location text))
  select s.id, s.organization_id, s.name, s.endpoint, s.status, s.tags, s.environment, s.locations, s.check_type, s.check_interval_seconds,
         s.last_checked_at, s.created_at, s.stale, due.due_at,
         array(select a.alert_rule_id::text from alerts a
                where a.service_id = s.id and a.kind = 'no_data' and a.alert_rule_id is not null and a.fired_at >= coalesce(s.last_checked_at, s.created_at)) as alerted_rules
    from due join services s on s.id = due.id
   where (not s.stale and (due.due_at <= ? or exists (select 1 from dark d where d.organization_id = s.organization_id and s.locations @> jsonb_build_array(d.location))))
      or (s.stale and due.due_at <= ? and exists (select 1 from alert_rules r where r.organization_id = s.organization_id and r.enabled and r.condition->>'no_data' = 'true'))`;

export function createWatchdogRepository(em: () => EntityManager): WatchdogRepository {
  return {
    async places(tx, locations) {
      if (locations.length === 0) return [];
      const rows = await tx.execute<Record<string, unknown>[]>(
        `select s.organization_id, l.location, min(s.created_at) as since,
                max(greatest(s.updated_at, st.checked_at) + make_interval(secs => greatest(3 * s.check_interval_seconds, ${MIN_STALE_MS / 1000}))) as active_until
           from services s cross join lateral jsonb_array_elements_text(s.locations) as l (location)
           left join service_location_status st on st.service_id = s.id and st.location = l.location
          where not s.paused and l.location in (select jsonb_array_elements_text(?::jsonb))
          group by s.organization_id, l.location`,
        [JSON.stringify(locations)],
      );
      return rows.map((r) => ({
        organizationId: String(r.organization_id),
        location: String(r.location),
        since: new Date(r.since as string),
        activeUntil: new Date(r.active_until as string),
      }));
    },

    async watched(tx, now, notBefore, dark) {
      const iso = now.toISOString();
      const dark_ = JSON.stringify(dark.map((d) => ({ organization_id: d.organizationId, location: d.location })));
      const rows = await tx.execute<Record<string, unknown>[]>(WATCHED_SQL, [notBefore.toISOString(), dark_, iso, iso]);
      return rows.map(toWatched);
    },

    async markStale(tx, services) {
      if (services.length === 0) return new Set();
      // Locked in id order, as ingest locks services; a result stored meanwhile keeps its service fresh.
      const rows = await tx.execute<{ id: string }[]>(
        `update services s set stale = true
           from (select s2.id from services s2 join json_to_recordset(?::json) as v (id uuid, last_checked_at timestamptz) on v.id = s2.id
                  where not s2.stale and not s2.paused
                    and coalesce(s2.last_checked_at < v.last_checked_at + interval '1 millisecond', s2.last_checked_at is null and v.last_checked_at is null)
                  order by s2.id for no key update of s2) l
          where s.id = l.id returning s.id`,
        [JSON.stringify(services.map((s) => ({ id: s.id, last_checked_at: s.lastResultAt?.toISOString() ?? null })))],
      );
      return new Set(rows.map((r) => r.id));
    },

    async unstaleUnchecked(tx) {
      const rows = await tx.execute<Record<string, unknown>[]>(
        `update services s set stale = false
           from (select id from services where stale and (paused or jsonb_array_length(locations) = 0) order by id for no key update) l
          where s.id = l.id returning s.id, s.organization_id, s.name, s.last_checked_at`,
        [],
      );
      return rows.map((r) => ({
        id: String(r.id),
        organizationId: String(r.organization_id),
        name: String(r.name),
        lastResultAt: r.last_checked_at ? new Date(r.last_checked_at as string) : null,
      }));
    },

    async openWatchAlerts(tx) {
      const rows = await tx.execute<Record<string, unknown>[]>(`select * from alerts where kind in ('agent_offline', 'location_offline') and status in ('firing', 'acknowledged')`, []);
      return rows.map(alertFromRow);
    },

    async open(tx, alerts) {
      if (alerts.length === 0) return [];
      const rows = await tx.execute<Record<string, unknown>[]>(
        `insert into alerts (id, organization_id, kind, service_id, service_name, alert_rule_id, agent_id, location, severity, title, message, status, fired_at, last_fired_at, updated_at, remind_at)
         select id, organization_id, kind, service_id, service_name, alert_rule_id, agent_id, location, severity, title, message, 'firing', fired_at, fired_at, fired_at, remind_at
           from json_to_recordset(?::json) as v (id uuid, organization_id uuid, kind text, service_id uuid, service_name text, alert_rule_id uuid, agent_id uuid, location text,
             severity text, title text, message text, fired_at timestamptz, remind_at timestamptz)
         on conflict do nothing
         returning *`,
        [
          JSON.stringify(
            alerts.map((a) => ({
              id: a.id, organization_id: a.organizationId, kind: a.kind, service_id: a.serviceId, service_name: a.serviceName, alert_rule_id: a.alertRuleId,
              agent_id: a.agentId, location: a.location, severity: a.severity, title: a.title, message: a.message, fired_at: a.firedAt.toISOString(),
              remind_at: a.remindAt?.toISOString() ?? null,
            })),
          ),
        ],
      );
      return rows.map(alertFromRow);
    },

    async resolve(tx, alertIds, at) {
      if (alertIds.length === 0) return [];
      const rows = await tx.execute<Record<string, unknown>[]>(
        `update alerts set status = 'resolved', resolved_at = ?, resolved_by = null, updated_at = ?, remind_at = null
          where id = any(?::uuid[]) and status in ('firing', 'acknowledged') returning *`,
        [at.toISOString(), at.toISOString(), `{${alertIds.join(',')}}`],
      );
      return rows.map(alertFromRow);
    },

    async nextStale(after, notBefore) {
      const [row] = await em().execute<{ due: string | null }[]>(
        `with ${DUE} select min(due_at) as due from due where due_at > ?`,
        [notBefore.toISOString(), after.toISOString()],
      );
      return row?.due ? new Date(row.due) : null;
    },
  };
}

function toWatched(r: Record<string, unknown>): WatchedService {
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    name: String(r.name),
    endpoint: String(r.endpoint),
    status: (r.status as string | null) ?? null,
    tags: (r.tags as string[] | null) ?? [],
    environment: (r.environment as string | null) ?? null,
    locations: (r.locations as string[] | null) ?? [],
    checkType: String(r.check_type),
    checkIntervalSeconds: Number(r.check_interval_seconds),
    lastResultAt: r.last_checked_at ? new Date(r.last_checked_at as string) : null,
    createdAt: new Date(r.created_at as string),
    stale: r.stale === true,
    dueAt: new Date(r.due_at as string),
    alertedRules: (r.alerted_rules as string[] | null) ?? [],
  };
}
