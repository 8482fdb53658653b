import { Migration } from '@mikro-orm/migrations';

/**
 * Raw results keep one index instead of two: the primary key (service_id, checked_at, id)
 * serves both the history reads (a service's results by time) and idempotent ingest (an agent
 * replays a result with its own service, time and id). The former key (id, checked_at) was
 * read by nothing else and cost as much again as the table's one useful index.
 * On a partitioned table both statements apply to every partition.
 */
export class Migration0012RawResultsKey extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table check_results drop constraint check_results_pkey;
      drop index check_results_service_time_idx;
      alter table check_results add primary key (service_id, checked_at, id);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table check_results drop constraint check_results_pkey;
      alter table check_results add primary key (id, checked_at);
      create index check_results_service_time_idx on check_results (service_id, checked_at desc);
    `);
  }
}
