// PostgreSQL error codes the repositories translate into domain errors.
export const UNIQUE_VIOLATION = '23505';
/** Also what PostgreSQL answers when no partition holds a row. */
export const CHECK_VIOLATION = '23514';

export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === UNIQUE_VIOLATION && (constraint === undefined || e.constraint === constraint);
}

/** A row was written to a partitioned table that has no partition for it. */
export function isMissingPartition(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === CHECK_VIOLATION && /no partition of relation/.test(e.message ?? '');
}

/** Socket errors and SQLSTATE classes that mean the server is down, restarting or out of reach. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', '57P01', '57P02', '57P03', '53300']);
const UNREACHABLE_MESSAGES = /Connection terminated|connection timeout|Timeout acquiring a connection|not queryable|Connection ended|the database system is (starting up|shutting down)/i;

/** The database did not answer the statement (not: the statement was wrong). */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; name?: string; message?: string };
  if (typeof e !== 'object' || e === null) return false;
  if (typeof e.code === 'string' && (UNREACHABLE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  return e.name === 'KnexTimeoutError' || e.name === 'ConnectionException' || UNREACHABLE_MESSAGES.test(e.message ?? '');
}
