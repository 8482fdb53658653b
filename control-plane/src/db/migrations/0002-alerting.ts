import { Migration } from '@mikro-orm/migrations';

export class Migration0002Alerting extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table services
        add column red_streak integer not null default 0,
        add column failure_streak integer not null default 0;

      create table alert_rules (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        service_id uuid references services (id) on delete cascade,
        name text not null,
        severity text not null check (severity in ('critical', 'warning', 'info')),
        condition jsonb not null default '{}',
        enabled boolean not null default true,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index alert_rules_organization_idx on alert_rules (organization_id);

      create table alerts (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        service_id uuid not null references services (id) on delete cascade,
        service_name text not null,
        alert_rule_id uuid not null references alert_rules (id) on delete cascade,
        severity text not null,
        title text not null,
        message text not null,
        status text not null check (status in ('firing', 'acknowledged', 'resolved')),
        fired_at timestamptz not null,
        last_fired_at timestamptz not null,
        acknowledged_at timestamptz,
        acknowledged_by uuid,
        resolved_at timestamptz,
        resolved_by uuid,
        updated_at timestamptz not null default now()
      );
      -- At most one open alert per (rule, service), whatever the number of replicas ingesting.
      create unique index alerts_open_once_idx on alerts (alert_rule_id, service_id) where status in ('firing', 'acknowledged');
      create index alerts_organization_idx on alerts (organization_id, fired_at desc);
      create index alerts_service_idx on alerts (service_id, status);

      create table notification_channels (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        name text not null,
        channel_type text not null check (channel_type in ('chat', 'email', 'webhook', 'pager', 'sms')),
        config jsonb not null,
        enabled boolean not null default true,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index notification_channels_organization_idx on notification_channels (organization_id);

      -- The outbox: written in the transaction that opens, acknowledges or resolves an alert.
      create table deliveries (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        channel_id uuid not null references notification_channels (id) on delete cascade,
        alert_id uuid references alerts (id) on delete cascade,
        event text not null,
        payload jsonb not null,
        status text not null check (status in ('pending', 'delivered', 'failed')),
        grouped boolean not null default false,
        attempts integer not null default 0,
        next_attempt_at timestamptz not null,
        last_error text,
        created_at timestamptz not null default now(),
        delivered_at timestamptz
      );
      create index deliveries_due_idx on deliveries (next_attempt_at) where status = 'pending';
      create index deliveries_alert_idx on deliveries (alert_id);

      create table delivery_attempts (
        id bigserial primary key,
        delivery_id uuid not null references deliveries (id) on delete cascade,
        attempted_at timestamptz not null,
        status_code integer,
        error text,
        duration_ms integer not null
      );
      create index delivery_attempts_delivery_idx on delivery_attempts (delivery_id);

      create table maintenance_windows (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        name text not null,
        starts_at timestamptz not null,
        ends_at timestamptz not null,
        service_ids jsonb not null default '[]',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index maintenance_windows_organization_idx on maintenance_windows (organization_id, ends_at);

      create table escalation_policies (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        name text not null,
        steps jsonb not null,
        repeat jsonb not null default 'false',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );

      -- Escalation steps still to come, claimed by whichever replica sees them due first.
      create table escalation_timers (
        alert_id uuid not null references alerts (id) on delete cascade,
        policy_id uuid not null references escalation_policies (id) on delete cascade,
        step_index integer not null,
        round integer not null,
        due_at timestamptz not null,
        primary key (alert_id)
      );
      create index escalation_timers_due_idx on escalation_timers (due_at);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop table escalation_timers; drop table escalation_policies; drop table maintenance_windows;
      drop table delivery_attempts; drop table deliveries; drop table notification_channels;
      drop table alerts; drop table alert_rules;
      alter table services drop column red_streak, drop column failure_streak;
    `);
  }
}
