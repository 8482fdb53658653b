// Retention as work for a due timer: once a day, the rows older than their organization's
// audit_retention_days go (the default for rows of no organization, or of one deleted since).
// Between those rounds a wake-up costs nothing: no query is made until the day is up.
import type { Clock } from '../../clock.js';
import type { DueWork } from '../../jobs/due-timer.js';
import type { AuditLogRepository } from './audit-log.repository.js';
import { DEFAULT_RETENTION_DAYS } from './audit-log.schema.js';

const DAY_MS = 86_400_000;
/** Rows per statement, so that no delete holds the table long. */
const BATCH = 5_000;
/** Statements per round; a round that fills them all continues at once. */
const BATCHES_PER_ROUND = 20;

export function auditRetention({ log, clock }: { log: Pick<AuditLogRepository, 'deleteExpired'>; clock: Clock }): DueWork {
  /** The first round is due at start. */
  let nextAt = 0;
  let unfinished = false;
  return {
    async run() {
      const now = clock.now();
      if (now.getTime() < nextAt) return 0;
      let deleted = 0;
      for (let i = 0; i < BATCHES_PER_ROUND; i++) {
        const count = await log.deleteExpired(now, DEFAULT_RETENTION_DAYS, BATCH);
        deleted += count;
        if (count < BATCH) {
          nextAt = now.getTime() + DAY_MS;
          unfinished = false;
          return deleted;
        }
      }
      unfinished = true;
      return deleted;
    },
    async nextDue() {
      return unfinished ? clock.now() : new Date(nextAt);
    },
  };
}
