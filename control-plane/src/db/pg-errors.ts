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
