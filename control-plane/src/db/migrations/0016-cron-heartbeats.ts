import { Migration } from '@mikro-orm/migrations';

/**
 * Cron heartbeats (issue 16): a heartbeat is expected either every interval_seconds or at each
 * occurrence of a cron schedule in a time zone. The next expected ping is stored (cron
 * occurrences are computed by the application, not by SQL), and so is the deadline of a started
 * run (max_runtime_seconds after /start), so both deadlines are claimed set-based like before.
 */
export class Migration0016CronHeartbeats extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table heartbeats
        alter column interval_seconds drop not null,
        add column schedule text,
        add column timezone text not null default 'UTC',
        add column max_runtime_seconds integer,
        add column expected_at timestamptz,
        add column run_deadline_at timestamptz,
        add constraint heartbeats_one_mode check ((interval_seconds is null) <> (schedule is null));
      update heartbeats set expected_at = last_ping_at + make_interval(secs => interval_seconds) where last_ping_at is not null;
      create index heartbeats_run_deadline_idx on heartbeats (run_deadline_at) where run_deadline_at is not null;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      -- A cron heartbeat has no interval to fall back to: it goes, with its service.
      delete from services where id in (select service_id from heartbeats where interval_seconds is null);
      drop index heartbeats_run_deadline_idx;
      alter table heartbeats
        drop constraint heartbeats_one_mode,
        drop column schedule, drop column timezone, drop column max_runtime_seconds,
        drop column expected_at, drop column run_deadline_at,
        alter column interval_seconds set not null;
    `);
  }
}
