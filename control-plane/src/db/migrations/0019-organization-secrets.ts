import { Migration } from '@mikro-orm/migrations';

/**
 * Organization secrets (issue 38): named values that services' options refer to as
 * {{secrets.NAME}}. The value is sealed by the application (enc:v2:...), never stored in the
 * clear; names are unique per organization and, like environment variables, case-sensitive.
 */
export class Migration0019OrganizationSecrets extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table organization_secrets (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        name text not null,
        value text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint organization_secrets_name_key unique (organization_id, name)
      );
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table organization_secrets;');
  }
}
