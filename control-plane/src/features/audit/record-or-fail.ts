// The generic middleware writes its row after the change has committed (see audit-changes.ts).
// A row that cannot be written is not dropped quietly: a few quick tries, then the entry goes to
// the error log in full (masked) and the request answers 500 instead of its success.
import type { Logger } from '../../logger.js';
import { storedStates, type AuditEntry, type RequestAuditTrail } from './audit-trail.js';

const ATTEMPTS = 3;
const PAUSE_MS = 100;

export class AuditWriteError extends Error {
  constructor(cause: unknown) {
    super('the change was made but its audit log row could not be written', { cause });
    this.name = 'AuditWriteError';
  }
}

export async function recordOrFail(trail: RequestAuditTrail, entries: AuditEntry[], logger: Logger | undefined): Promise<void> {
  let failure: unknown;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      await trail.recordAll(entries);
      return;
    } catch (err) {
      failure = err;
      if (attempt < ATTEMPTS) await new Promise((resolve) => setTimeout(resolve, PAUSE_MS * attempt));
    }
  }
  const lost = entries.map((e) => ({ ...e, ...storedStates(e.before ?? null, e.after ?? null) }));
  logger?.error({ err: failure, audit: lost }, 'audit log row not written for a change already made');
  throw new AuditWriteError(failure);
}
