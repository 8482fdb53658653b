import { Migration } from '@mikro-orm/migrations';

/**
 * Raw results become a table partitioned by day, so retention drops whole partitions; uptime
 * and metrics read per-minute, per-hour and per-day rollups written by the ingest statement,
 * so a 90-day answer reads a few hundred rows whatever the number of raw results.
 */
export class Migration0006RollupsAndPartitions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      -- Histogram of response times in quarter-power-of-two buckets: bucket i holds values in
      -- (2^((i-1)/4), 2^(i/4)] ms (bucket 0: up to 1 ms; the last one: everything above).
      -- Enough for a p95 within ~10 % without keeping every value.
      create function outpost_response_histogram(values_ms double precision[]) returns integer[]
        language sql immutable parallel safe as $$
          select array_agg(coalesce(h.n, 0) order by i)
            from generate_series(0, 71) as i
            left join (
              select least(71, greatest(0, ceil(4 * ln(greatest(v, 1)) / ln(2))))::int as b, count(*)::int as n
                from unnest(values_ms) as v group by 1
            ) as h on h.b = i
        $$;
      -- Runs for every hour and day rollup a batch touches; a loop is about twice as fast as
      -- unnest/array_agg here.
      create function outpost_histogram_add(a integer[], b integer[]) returns integer[]
        language plpgsql immutable parallel safe as $$
          declare
            sum integer[] := a;
          begin
            for i in 1 .. coalesce(array_length(b, 1), 0) loop
              sum[i] := coalesce(sum[i], 0) + b[i];
            end loop;
            return sum;
          end
        $$;

      -- Creates the partition of a day-partitioned table holding the given day (UTC), once.
      -- Tables updated in place (rollups) leave room in each page so that updates stay HOT.
      create function outpost_ensure_day_partition(parent text, day date) returns void
        language plpgsql as $$
          declare
            name text := parent || '_p' || to_char(day, 'YYYYMMDD');
          begin
            if to_regclass(name) is not null then return; end if;
            execute format('create table if not exists %I partition of %I for values from (%L) to (%L) with (fillfactor = %s)',
              name, parent, (day::timestamp at time zone 'UTC'), ((day + 1)::timestamp at time zone 'UTC'),
              case when parent like 'check_rollups%' then 70 else 100 end);
          exception when duplicate_table or unique_violation then
            null; -- another replica created it meanwhile
          end
        $$;
      -- Drops the day partitions that end on or before the given day; answers how many went.
      create function outpost_drop_day_partitions_before(parent text, day date) returns integer
        language plpgsql as $$
          declare
            part record;
            dropped integer := 0;
          begin
            for part in
              select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
               where i.inhparent = to_regclass(parent) and c.relname ~ '_p[0-9]{8}$'
                 and to_date(right(c.relname, 8), 'YYYYMMDD') < day
            loop
              execute format('drop table if exists %I', part.relname);
              dropped := dropped + 1;
            end loop;
            return dropped;
          end
        $$;

      alter table check_results rename to check_results_unpartitioned;
      alter index check_results_pkey rename to check_results_unpartitioned_pkey;
      drop index check_results_service_time_idx;
      -- A partitioned table's unique key must hold the partition key; a result id comes with
      -- its own checked_at on every replay, so (id, checked_at) keeps ingest idempotent.
      -- History tables hold no foreign key: a key check per written row would cost ingest more
      -- than the rest of the insert. Ingest writes only for services it holds locked, and the
      -- trigger below removes a deleted service's history.
      create table check_results (
        id uuid not null,
        service_id uuid not null,
        organization_id uuid not null,
        status text not null check (status in ('GREEN', 'YELLOW', 'RED')),
        response_time_ms double precision not null,
        message text not null,
        location text not null,
        agent_id text not null,
        checked_at timestamptz not null,
        received_at timestamptz not null default now(),
        ad_hoc boolean not null default false,
        details jsonb not null default '{}',
        primary key (id, checked_at)
      ) partition by range (checked_at);
      create index check_results_service_time_idx on check_results (service_id, checked_at desc);

      create table check_rollups_minute (
        service_id uuid not null,
        bucket timestamptz not null,
        total_checks integer not null,
        successful_checks integer not null,
        response_time_sum_ms double precision not null,
        response_time_max_ms double precision not null,
        primary key (service_id, bucket)
      ) partition by range (bucket);
      -- Hours and days also keep a response-time histogram, for percentiles.
      create table check_rollups_hour (
        service_id uuid not null,
        bucket timestamptz not null,
        total_checks integer not null,
        successful_checks integer not null,
        response_time_sum_ms double precision not null,
        response_time_max_ms double precision not null,
        response_histogram integer[] not null,
        primary key (service_id, bucket)
      );
      create table check_rollups_day (like check_rollups_hour including all);
      alter table check_rollups_hour set (fillfactor = 70);
      alter table check_rollups_day set (fillfactor = 70);

      create function outpost_delete_service_history() returns trigger
        language plpgsql as $$
          begin
            delete from check_results where service_id = old.id;
            delete from check_rollups_minute where service_id = old.id;
            delete from check_rollups_hour where service_id = old.id;
            delete from check_rollups_day where service_id = old.id;
            return old;
          end
        $$;
      create trigger services_delete_history after delete on services
        for each row execute function outpost_delete_service_history();

      select outpost_ensure_day_partition('check_results', d::date), outpost_ensure_day_partition('check_rollups_minute', d::date)
        from (select distinct date_bin('1 day', checked_at, timestamptz 'epoch') at time zone 'UTC' as d from check_results_unpartitioned) as days;
      insert into check_results select * from check_results_unpartitioned;
      drop table check_results_unpartitioned;

      insert into check_rollups_minute
        select service_id, date_bin('1 minute', checked_at, timestamptz 'epoch'), count(*), count(*) filter (where status <> 'RED'),
               sum(response_time_ms), max(response_time_ms)
          from check_results group by 1, 2;
      insert into check_rollups_hour
        select service_id, date_bin('1 hour', checked_at, timestamptz 'epoch'), count(*), count(*) filter (where status <> 'RED'),
               sum(response_time_ms), max(response_time_ms), outpost_response_histogram(array_agg(response_time_ms))
          from check_results group by 1, 2;
      insert into check_rollups_day
        select service_id, date_bin('1 day', checked_at, timestamptz 'epoch'), count(*), count(*) filter (where status <> 'RED'),
               sum(response_time_ms), max(response_time_ms), outpost_response_histogram(array_agg(response_time_ms))
          from check_results group by 1, 2;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop trigger services_delete_history on services; drop function outpost_delete_service_history();
      drop table check_rollups_day; drop table check_rollups_hour; drop table check_rollups_minute;
      drop function outpost_drop_day_partitions_before(text, date); drop function outpost_ensure_day_partition(text, date);
      drop function outpost_histogram_add(integer[], integer[]); drop function outpost_response_histogram(double precision[]);
    `);
  }
}
