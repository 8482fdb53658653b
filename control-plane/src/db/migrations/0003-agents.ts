import { Migration } from '@mikro-orm/migrations';

export class Migration0003Agents extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table agents (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        name text not null,
        location text not null,
        token_hash text not null unique,
        -- The token before the last rotation keeps working until it is revoked.
        previous_token_hash text unique,
        connected boolean not null default false,
        version text,
        hostname text,
        last_seen_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index agents_organization_idx on agents (organization_id, created_at);

      -- The latest result of each service from each location: the input of multi-location status.
      create table service_location_status (
        service_id uuid not null references services (id) on delete cascade,
        location text not null,
        status text not null check (status in ('GREEN', 'YELLOW', 'RED')),
        checked_at timestamptz not null,
        primary key (service_id, location)
      );
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table service_location_status; drop table agents;');
  }
}
