import { Migration } from '@mikro-orm/migrations';

/**
 * The audit log (issue 43): who changed what, when and from where. Rows name their actor and
 * resource by id without foreign keys, so they outlive the users, keys and resources they
 * speak of. A trigger refuses every UPDATE, so a row once written stays as written; DELETE
 * stays for retention, which keeps each organization's rows `audit_retention_days` (default
 * 400). Touches organizations only with a column whose default is a constant (no rewrite).
 */
export class Migration0025AuditLog extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table audit_log (
        id bigserial primary key,
        organization_id uuid,
        at timestamptz not null default now(),
        actor_user_id uuid,
        actor_api_key_id uuid,
        actor_email text,
        address text,
        action text not null,
        resource text not null,
        resource_id text,
        before jsonb,
        after jsonb
      );
      create index audit_log_organization_at_idx on audit_log (organization_id, at desc, id desc);
      create function audit_log_refuse_update() returns trigger language plpgsql as $$
      begin
        raise exception 'audit_log rows cannot be changed';
      end
      $$;
      create trigger audit_log_no_update before update on audit_log for each row execute function audit_log_refuse_update();
      alter table organizations add column audit_retention_days integer not null default 400
        constraint organizations_audit_retention_days_check check (audit_retention_days between 1 and 3650);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop table audit_log;
      drop function audit_log_refuse_update();
      alter table organizations drop column audit_retention_days;
    `);
  }
}
