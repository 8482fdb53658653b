// Raw check results against CHECK_RETENTION_DAYS: the retention job drops whole days (UTC)
// once they fall out of it, so no row is older than retention and one day unless it is not running.
import { fail, humanBytes, ok, type CheckResult, type Sql } from './check.js';

const DAY_MS = 86_400_000;
const NAME = 'check results';

export interface ResultsFacts {
  rows: number;
  oldest: Date | null;
  /** On disk, every day's partition with its indexes and TOAST. */
  bytes: number;
}

export async function readResultsFacts(sql: Sql): Promise<ResultsFacts> {
  const [row] = await sql<{ rows: string; oldest: Date | null; bytes: string }>(
    `select (select count(*) from check_results) as rows,
            (select min(checked_at) from check_results) as oldest,
            (select coalesce(sum(pg_total_relation_size(inhrelid)), 0) from pg_inherits where inhparent = 'check_results'::regclass)
              + pg_total_relation_size('check_results') as bytes`,
  );
  return { rows: Number(row!.rows), oldest: row!.oldest ? new Date(row!.oldest) : null, bytes: Number(row!.bytes) };
}

export function checkResultsRetention(facts: ResultsFacts, retentionDays: number, now: Date): CheckResult {
  const size = `${facts.rows} row(s), ${humanBytes(facts.bytes)} on disk; retention ${retentionDays} day(s)`;
  if (!facts.oldest) return ok(NAME, size);
  const ageDays = (now.getTime() - facts.oldest.getTime()) / DAY_MS;
  const oldest = `oldest ${facts.oldest.toISOString()} (${ageDays.toFixed(1)} days)`;
  if (ageDays > retentionDays + 1) {
    return fail(NAME, `${size}; ${oldest}: the retention job is not running`, 'Keep a control plane running: it drops expired days at start and every hour; its log names failed rounds "background job round failed" with job "check retention".');
  }
  return ok(NAME, `${size}; ${oldest}`);
}
