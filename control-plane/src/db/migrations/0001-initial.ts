import { Migration } from '@mikro-orm/migrations';

export class Migration0001Initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table organizations (
        id uuid primary key,
        name text not null,
        slug text not null unique,
        plan text not null default 'free',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create table users (
        id uuid primary key,
        email text not null unique,
        full_name text not null,
        password_hash text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create table memberships (
        organization_id uuid not null references organizations (id) on delete cascade,
        user_id uuid not null references users (id) on delete cascade,
        role text not null check (role in ('owner', 'admin', 'member', 'viewer')),
        created_at timestamptz not null default now(),
        primary key (organization_id, user_id)
      );
      create index memberships_user_idx on memberships (user_id);
      create table services (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        name text not null,
        description text,
        environment text,
        endpoint text not null,
        check_type text not null,
        check_interval_seconds integer not null,
        timeout_seconds integer not null,
        tags jsonb not null default '[]',
        locations jsonb not null default '["local"]',
        options jsonb not null default '{}',
        status text check (status in ('GREEN', 'YELLOW', 'RED')),
        last_checked_at timestamptz,
        last_response_time_ms double precision,
        config_version integer not null default 1,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index services_organization_idx on services (organization_id, created_at);
      create index services_locations_idx on services using gin (locations);
      create table check_results (
        id uuid primary key,
        service_id uuid not null references services (id) on delete cascade,
        organization_id uuid not null,
        status text not null check (status in ('GREEN', 'YELLOW', 'RED')),
        response_time_ms double precision not null,
        message text not null,
        location text not null,
        agent_id text not null,
        checked_at timestamptz not null,
        received_at timestamptz not null default now(),
        ad_hoc boolean not null default false,
        details jsonb not null default '{}'
      );
      create index check_results_service_time_idx on check_results (service_id, checked_at desc);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table check_results; drop table services; drop table memberships; drop table users; drop table organizations;');
  }
}
