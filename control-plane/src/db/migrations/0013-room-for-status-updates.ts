import { Migration } from '@mikro-orm/migrations';

/**
 * Every result rewrites its service's status row, its location's latest-result row and its
 * rollup rows. None of the columns it changes is indexed, so PostgreSQL can update them in
 * place (HOT, no index writes) when the page has room: leave that room. Existing pages gain
 * it as they are rewritten; new pages have it at once.
 */
export class Migration0013RoomForStatusUpdates extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table services set (fillfactor = 50);
      alter table service_location_status set (fillfactor = 50);
      alter table check_rollups_hour set (fillfactor = 70);
      alter table check_rollups_day set (fillfactor = 70);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table services reset (fillfactor);
      alter table service_location_status reset (fillfactor);
      alter table check_rollups_hour reset (fillfactor);
      alter table check_rollups_day reset (fillfactor);
    `);
  }
}
