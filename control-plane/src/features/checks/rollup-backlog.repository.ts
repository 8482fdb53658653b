// SQL of the rollup backlog (ADR 0007): the ingest transaction appends each batch's stored
// results as one row (check-results.repository.ts); here folders take rows, in the
// transaction that folds them, and add the folded deltas to the rollup tables.
import type { EntityManager } from '@mikro-orm/postgresql';
import { queryBound, type Tx } from '../../db/tx.js';
import type { RollupDeltas } from './rollup-deltas.js';

export interface RollupBacklogRepository {
  /** The id of the newest row, null when no row waits. */
  newest(): Promise<string | null>;
  /** Deletes and answers up to `limit` of the oldest rows, skipping those another folder holds. */
  takeSome(tx: Tx, limit: number): Promise<string[]>;
  /**
   * Deletes and answers up to `limit` of the oldest rows up to id `newest`, waiting for those
   * another folder holds (gone once it commits).
   */
  takeThrough(tx: Tx, newest: string, limit: number): Promise<string[]>;
  /**
   * Adds the deltas to the rollups of the services that still exist. Those services are
   * locked against deletion first, so a service deleted meanwhile (its rollups deleted with
   * it) gets none back.
   */
  add(tx: Tx, deltas: RollupDeltas): Promise<void>;
}

export function createRollupBacklogRepository(em: () => EntityManager): RollupBacklogRepository {
  const take = async (tx: Tx, sql: string, params: unknown[]) => (await queryBound<{ results: string }>(tx, sql, params)).map((r) => r.results);
  return {
    async newest() {
      const [row] = await em().execute<{ newest: string | null }[]>('select max(id)::text as newest from rollup_backlog');
      return row?.newest ?? null;
    },

    takeSome(tx, limit) {
      return take(tx, `delete from rollup_backlog where id in (select id from rollup_backlog order by id limit ? for update skip locked) returning results`, [limit]);
    },

    takeThrough(tx, newest, limit) {
      return take(tx, `delete from rollup_backlog where id in (select id from rollup_backlog where id <= ? order by id limit ? for update) returning results`, [newest, limit]);
    },

    async add(tx, deltas) {
      const services = [...new Set(deltas.day.map((d) => d.service_id))].sort();
      await queryBound(tx, ADD_SQL, [`{${services.join(',')}}`, JSON.stringify(deltas.minute), JSON.stringify(deltas.hour), JSON.stringify(deltas.day)]);
    },
  };
}

function upsertRollup(table: string, histogram: boolean): string {
  const columns = `service_id, bucket, total_checks, successful_checks, response_time_sum_ms, response_time_max_ms${histogram ? ', response_histogram' : ''}`;
  return `insert into ${table} as r (${columns})
      select ${columns} from json_to_recordset(?::json) as x (service_id uuid, bucket timestamptz, total_checks int, successful_checks int,
        response_time_sum_ms float8, response_time_max_ms float8${histogram ? ', response_histogram int[]' : ''})
       where x.service_id in (select id from live)
    on conflict (service_id, bucket) do update set
      total_checks = r.total_checks + excluded.total_checks,
      successful_checks = r.successful_checks + excluded.successful_checks,
      response_time_sum_ms = r.response_time_sum_ms + excluded.response_time_sum_ms,
      response_time_max_ms = greatest(r.response_time_max_ms, excluded.response_time_max_ms)${
        histogram ? ', response_histogram = outpost_histogram_add(r.response_histogram, excluded.response_histogram)' : ''
      }`;
}

// One statement: the services locked FOR KEY SHARE (which ingest's FOR NO KEY UPDATE does not
// wait for, and a delete does), then one upsert per rollup table. The deltas come sorted by
// service and bucket, so folders running side by side lock rollup rows in the same order.
const ADD_SQL = `with live as (select id from services where id = any(?::uuid[]) order by id for key share),
  by_minute as (${upsertRollup('check_rollups_minute', false)}),
  by_hour as (${upsertRollup('check_rollups_hour', true)}),
  by_day as (${upsertRollup('check_rollups_day', true)})
  select 1`;
