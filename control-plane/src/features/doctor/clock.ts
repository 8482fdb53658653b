// Clock skew. Agents send their clock in heartbeats but the control plane does not keep it, so
// what can be measured is this host against the database, whose now() stamps every row.
import { ok, warn, type CheckResult, type Sql } from './check.js';

export const MAX_SKEW_MS = 2_000;

/** The database's clock minus this host's, taking the host's time halfway through the query. */
export async function measureDatabaseSkew(sql: Sql, hostNow: () => number = Date.now): Promise<number> {
  const before = hostNow();
  const [row] = await sql<{ ms: string }>('select (extract(epoch from clock_timestamp()) * 1000)::bigint as ms');
  const after = hostNow();
  return Number(row!.ms) - (before + after) / 2;
}

export function checkClock(skewMs: number): CheckResult {
  const seconds = (Math.abs(skewMs) / 1000).toFixed(2);
  const which = skewMs > 0 ? 'ahead of' : 'behind';
  const note = "agents' clocks are not reported";
  if (Math.abs(skewMs) > MAX_SKEW_MS) {
    return warn('clock', `the database's clock is ${seconds} s ${which} this host's; ${note}`, 'Synchronise the clocks of this host, the database server and the agents with NTP (chrony or systemd-timesyncd).');
  }
  return ok('clock', `the database's clock is within ${seconds} s of this host's; ${note}`);
}
