import { Migration } from '@mikro-orm/migrations';

export class Migration0011LocationResponseTime extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      -- The response time of each location's latest result, for the dashboard's overview.
      -- Nullable: rows written before this migration have none until their next result.
      alter table service_location_status add column response_time_ms double precision;
    `);
  }

  override async down(): Promise<void> {
    this.addSql('alter table service_location_status drop column response_time_ms;');
  }
}
