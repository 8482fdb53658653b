import { Migration } from '@mikro-orm/migrations';

export class Migration0005Heartbeats extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      -- A heartbeat is a monitored service (its status, results and alerts live there) that
      -- is pinged instead of checked; its deadline is stored, not a timer.
      create table heartbeats (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        service_id uuid not null unique references services (id) on delete cascade,
        key text not null unique,
        interval_seconds integer not null,
        grace_seconds integer not null,
        last_ping_at timestamptz,
        last_start_at timestamptz,
        deadline_at timestamptz,
        created_at timestamptz not null default now()
      );
      create index heartbeats_deadline_idx on heartbeats (deadline_at) where deadline_at is not null;
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table heartbeats;');
  }
}
