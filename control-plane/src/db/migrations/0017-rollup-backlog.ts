import { Migration } from '@mikro-orm/migrations';

/**
 * The rollup backlog (ADR 0007): the ingest transaction appends each batch's stored results
 * here as one row, and the rollup folder moves them into the rollup tables later, many
 * batches per statement. A row is deleted in the transaction that folds it, so each result
 * is counted once. Stored uncompressed: it lives for about a second.
 */
export class Migration0017RollupBacklog extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table rollup_backlog (
        id bigint generated always as identity primary key,
        results text not null
      );
      alter table rollup_backlog alter column results set storage external;
    `);
  }

  override async down(): Promise<void> {
    // What the backlog still holds goes into the rollups first, so going back loses no count.
    const backlog = `select (e->>0)::uuid as service_id, to_timestamp((e->>1)::float8 / 1000) as checked_at, e->>2 as status, (e->>3)::float8 as ms
        from rollup_backlog b cross join json_array_elements(b.results::json) as e
       where exists (select 1 from services s where s.id = (e->>0)::uuid)`;
    const fold = (table: string, width: string, histogram: boolean) => `
      insert into ${table} as r (service_id, bucket, total_checks, successful_checks, response_time_sum_ms, response_time_max_ms${histogram ? ', response_histogram' : ''})
      select service_id, date_bin('${width}', checked_at, 'epoch'), count(*), count(*) filter (where status <> 'RED'), sum(ms), max(ms)${histogram ? ', outpost_response_histogram(array_agg(ms))' : ''}
        from (${backlog}) as v group by 1, 2
      on conflict (service_id, bucket) do update set
        total_checks = r.total_checks + excluded.total_checks,
        successful_checks = r.successful_checks + excluded.successful_checks,
        response_time_sum_ms = r.response_time_sum_ms + excluded.response_time_sum_ms,
        response_time_max_ms = greatest(r.response_time_max_ms, excluded.response_time_max_ms)${
          histogram ? ', response_histogram = outpost_histogram_add(r.response_histogram, excluded.response_histogram)' : ''
        };`;
    this.addSql(`
      select outpost_ensure_day_partition('check_rollups_minute', day) from (select distinct (checked_at at time zone 'UTC')::date as day from (${backlog}) as v) as days;
      ${fold('check_rollups_minute', '1 minute', false)}
      ${fold('check_rollups_hour', '1 hour', true)}
      ${fold('check_rollups_day', '1 day', true)}
      drop table rollup_backlog;
    `);
  }
}
