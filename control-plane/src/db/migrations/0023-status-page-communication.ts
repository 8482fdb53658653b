import { Migration } from '@mikro-orm/migrations';

/**
 * Status pages that communicate (issue 42). A page says who may see it (`access`: public,
 * password, members or an address allowlist; the old `public` flag becomes public or members),
 * may answer on a custom domain, groups its services into components, and may stop mirroring
 * alerts as incidents. People write incidents with a timeline of updates; maintenance windows
 * name the pages that announce them; visitors subscribe by e-mail or webhook and hear through an
 * outbox of their own (at least once, retried); services may carry a badge token; organizations
 * may get a monthly uptime report by e-mail.
 */
export class Migration0023StatusPageCommunication extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table status_pages
        add column access text not null default 'public',
        add column password_hash text,
        add column ip_allowlist jsonb not null default '[]',
        add column custom_domain text,
        add column auto_incidents boolean not null default true,
        add column groups jsonb not null default '[]';
      update status_pages set access = 'members' where not public;
      alter table status_pages drop column public;
      alter table status_pages add constraint status_pages_access_check check (access in ('public', 'password', 'members', 'ip_allowlist'));
      create unique index status_pages_custom_domain_key on status_pages (custom_domain) where custom_domain is not null;

      create table status_page_incidents (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        status_page_id uuid not null references status_pages (id) on delete cascade,
        title text not null,
        status text not null,
        impact text not null,
        -- [{service_id, impact}]: the services it affects now (the latest update's list).
        affected jsonb not null default '[]',
        -- The alert it was opened from, if any.
        alert_id uuid references alerts (id) on delete set null,
        starts_at timestamptz not null,
        resolved_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index status_page_incidents_page_idx on status_page_incidents (status_page_id, starts_at desc);
      create table status_page_incident_updates (
        id uuid primary key,
        incident_id uuid not null references status_page_incidents (id) on delete cascade,
        status text not null,
        message text not null,
        -- The affected list this update set; null when it left it as it was.
        affected jsonb,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index status_page_incident_updates_incident_idx on status_page_incident_updates (incident_id, created_at);

      alter table maintenance_windows
        add column status_page_ids jsonb not null default '[]',
        add column announce_hours_before integer not null default 72;
      -- What subscribers were told of each occurrence (scheduled, started, ended): once each.
      create table maintenance_announcements (
        window_id uuid not null references maintenance_windows (id) on delete cascade,
        occurrence_starts_at timestamptz not null,
        event text not null,
        announced_at timestamptz not null default now(),
        primary key (window_id, occurrence_starts_at, event)
      );

      create table status_page_subscribers (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        status_page_id uuid not null references status_pages (id) on delete cascade,
        email text,
        webhook_url text,
        -- Empty: every component of the page.
        component_ids jsonb not null default '[]',
        confirmed_at timestamptz,
        created_at timestamptz not null default now(),
        constraint status_page_subscribers_one_address check ((email is null) <> (webhook_url is null))
      );
      create unique index status_page_subscribers_email_key on status_page_subscribers (status_page_id, lower(email)) where email is not null;
      create unique index status_page_subscribers_webhook_key on status_page_subscribers (status_page_id, webhook_url) where webhook_url is not null;
      create table subscriber_deliveries (
        id uuid primary key,
        subscriber_id uuid not null references status_page_subscribers (id) on delete cascade,
        event text not null,
        payload jsonb not null,
        status text not null default 'pending',
        attempts integer not null default 0,
        next_attempt_at timestamptz not null default now(),
        last_error text,
        created_at timestamptz not null default now(),
        delivered_at timestamptz
      );
      create index subscriber_deliveries_due_idx on subscriber_deliveries (next_attempt_at) where status = 'pending';
      create index subscriber_deliveries_subscriber_idx on subscriber_deliveries (subscriber_id);

      -- sha256 of the token that shows a service's badges without a public page.
      alter table services add column badge_token_hash text;

      create table report_settings (
        organization_id uuid primary key references organizations (id) on delete cascade,
        monthly_enabled boolean not null default false,
        recipients jsonb not null default '[]',
        -- The first day of the last month whose report went out.
        last_sent_month date,
        updated_at timestamptz not null default now()
      );
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop table report_settings;
      alter table services drop column badge_token_hash;
      drop table subscriber_deliveries;
      drop table status_page_subscribers;
      drop table maintenance_announcements;
      alter table maintenance_windows drop column status_page_ids, drop column announce_hours_before;
      drop table status_page_incident_updates;
      drop table status_page_incidents;
      alter table status_pages add column public boolean not null default true;
      update status_pages set public = (access = 'public');
      alter table status_pages drop column access, drop column password_hash, drop column ip_allowlist, drop column custom_domain, drop column auto_incidents, drop column groups;
    `);
  }
}
