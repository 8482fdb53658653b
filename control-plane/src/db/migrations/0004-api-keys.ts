import { Migration } from '@mikro-orm/migrations';

export class Migration0004ApiKeys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table api_keys (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        created_by uuid not null references users (id) on delete cascade,
        name text not null,
        role text not null check (role in ('owner', 'admin', 'member', 'viewer')),
        -- The visible part of the key, used to find it; the rest is only stored as a hash.
        prefix text not null unique,
        key_hash text not null,
        created_at timestamptz not null default now(),
        last_used_at timestamptz
      );
      create index api_keys_organization_idx on api_keys (organization_id, created_at);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table api_keys;');
  }
}
