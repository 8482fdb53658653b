import { Migration } from '@mikro-orm/migrations';

/**
 * Recurring maintenance (issue 39): a window is either one-off (starts_at and ends_at, as
 * before) or recurring (a cron schedule read in a time zone, each occurrence lasting
 * duration_minutes). Occurrences are computed by the application with croner, like cron
 * heartbeats; the database only keeps the two forms apart.
 */
export class Migration0021RecurringMaintenance extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table maintenance_windows
        alter column starts_at drop not null,
        alter column ends_at drop not null,
        add column schedule text,
        add column timezone text,
        add column duration_minutes integer,
        add constraint maintenance_windows_one_form check (
          (schedule is null and timezone is null and duration_minutes is null and starts_at is not null and ends_at is not null)
          or (schedule is not null and timezone is not null and duration_minutes is not null and starts_at is null and ends_at is null)
        );
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      -- A recurring window has no single time range to fall back to: it goes.
      delete from maintenance_windows where schedule is not null;
      alter table maintenance_windows
        drop constraint maintenance_windows_one_form,
        drop column schedule, drop column timezone, drop column duration_minutes,
        alter column starts_at set not null,
        alter column ends_at set not null;
    `);
  }
}
