import { Migration } from '@mikro-orm/migrations';

/**
 * Alerting people can live with (issue 39).
 * - Services: `paused` stops their checks; `stale` is set when no result came for three
 *   intervals; `flapping` with the times of recent status changes (epoch ms, newest last,
 *   trimmed to the flap window) decides flap detection; `green_streak` counts consecutive
 *   GREEN statuses for a rule's recovery_threshold.
 * - Alerts: a `kind` (a service's status, its missing data, a silent agent or a dark
 *   location), so an alert may have no service or no rule; `silenced_by` names the silence
 *   that keeps it quiet; `remind_at` is when the next reminder is due.
 * - Silences: matchers over services and a time range; `next_boundary_at` is when the
 *   silence next starts or ends, so one timer applies it to the alerts it covers.
 */
export class Migration0020QuietAlerting extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table services
        add column paused boolean not null default false,
        add column stale boolean not null default false,
        add column flapping boolean not null default false,
        add column status_changes jsonb not null default '[]',
        add column green_streak integer not null default 0;

      create table silences (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        matchers jsonb not null,
        starts_at timestamptz not null,
        ends_at timestamptz not null,
        comment text not null,
        -- When the silence next starts or ends, until its end has been applied to the alerts.
        next_boundary_at timestamptz,
        created_by uuid,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index silences_organization_idx on silences (organization_id, ends_at);
      create index silences_boundary_idx on silences (next_boundary_at) where next_boundary_at is not null;

      alter table alerts
        alter column service_id drop not null,
        alter column alert_rule_id drop not null,
        add column kind text not null default 'service' check (kind in ('service', 'no_data', 'agent_offline', 'location_offline')),
        add column agent_id uuid,
        add column location text,
        add column silenced_by uuid references silences (id) on delete set null,
        add column remind_at timestamptz;
      drop index alerts_open_once_idx;
      -- At most one open alert per (rule, service, kind), whatever the number of replicas ingesting.
      create unique index alerts_open_once_idx on alerts (alert_rule_id, service_id, kind) where status in ('firing', 'acknowledged');
      create unique index alerts_open_agent_idx on alerts (organization_id, agent_id) where kind = 'agent_offline' and status in ('firing', 'acknowledged');
      create unique index alerts_open_location_idx on alerts (organization_id, location) where kind = 'location_offline' and status in ('firing', 'acknowledged');
      create index alerts_remind_idx on alerts (remind_at) where status = 'firing' and remind_at is not null;
      create index alerts_silenced_idx on alerts (silenced_by) where silenced_by is not null;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      delete from alerts where service_id is null or alert_rule_id is null;
      drop index alerts_silenced_idx;
      drop index alerts_remind_idx;
      drop index alerts_open_location_idx;
      drop index alerts_open_agent_idx;
      drop index alerts_open_once_idx;
      alter table alerts drop column remind_at, drop column silenced_by, drop column location, drop column agent_id, drop column kind,
        alter column alert_rule_id set not null, alter column service_id set not null;
      create unique index alerts_open_once_idx on alerts (alert_rule_id, service_id) where status in ('firing', 'acknowledged');
      drop table silences;
      alter table services drop column green_streak, drop column status_changes, drop column flapping, drop column stale, drop column paused;
    `);
  }
}
