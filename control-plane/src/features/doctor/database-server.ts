// The database server: a supported PostgreSQL version, and the settings the control plane
// depends on.
import { ok, warn, type CheckResult, type Sql } from './check.js';

/** The README's "PostgreSQL 14 or newer", as server_version_num. */
export const OLDEST_SUPPORTED_VERSION = 140000;

export interface DatabaseFacts {
  /** server_version, e.g. "16.4". */
  version: string;
  /** server_version_num, e.g. 160004. */
  versionNum: number;
  maxConnections: number;
  reservedConnections: number;
  timezone: string;
}

export async function readDatabaseFacts(sql: Sql): Promise<DatabaseFacts> {
  const [row] = await sql<{ version: string; num: string; max: string; reserved: string; tz: string }>(
    `select current_setting('server_version') as version, current_setting('server_version_num') as num,
            current_setting('max_connections') as max, current_setting('superuser_reserved_connections') as reserved,
            current_setting('TimeZone') as tz`,
  );
  return { version: row!.version, versionNum: Number(row!.num), maxConnections: Number(row!.max), reservedConnections: Number(row!.reserved), timezone: row!.tz };
}

export function checkDatabaseVersion(facts: DatabaseFacts, embeddedDataFolder: string | undefined): CheckResult {
  if (embeddedDataFolder) return ok('database', `embedded PGlite (PostgreSQL ${facts.version}) in ${embeddedDataFolder}`);
  if (facts.versionNum < OLDEST_SUPPORTED_VERSION) {
    return warn('database', `PostgreSQL ${facts.version} is older than 14, the oldest supported`, 'Upgrade the PostgreSQL server to version 14 or newer.');
  }
  return ok('database', `PostgreSQL ${facts.version}`);
}

/**
 * Each control plane holds its pool, one connection listening for the other replicas, and one
 * more while it migrates at start: all of them must fit beside the superuser's reserve.
 */
export function checkDatabaseSettings(facts: DatabaseFacts, poolSize: number, embedded: boolean): CheckResult {
  // Times are stored as timestamptz and the SQL names UTC where a day matters (partitions), so
  // the session time zone is information, not a requirement.
  const zone = `timezone ${facts.timezone} (the control plane names UTC where days matter)`;
  if (embedded) return ok('database settings', `one session (embedded); ${zone}`);
  const needed = poolSize + 2;
  const usable = facts.maxConnections - facts.reservedConnections;
  if (usable < needed) {
    return warn(
      'database settings',
      `max_connections ${facts.maxConnections} leaves ${usable} for clients, fewer than the ${needed} one control plane may open (DATABASE_POOL_SIZE ${poolSize} + 2); ${zone}`,
      `Raise max_connections to at least ${needed + facts.reservedConnections} times the number of replicas, or lower DATABASE_POOL_SIZE.`,
    );
  }
  return ok('database settings', `max_connections ${facts.maxConnections} for DATABASE_POOL_SIZE ${poolSize} (+2) per replica; ${zone}`);
}
