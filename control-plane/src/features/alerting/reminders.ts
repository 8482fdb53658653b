// Reminders: while an alert fires unacknowledged and unsilenced, its rule's
// repeat_interval_minutes brings it back to those who heard it, saying how long it has been
// firing. Each alert carries when its next reminder is due; a due timer wakes for the earliest.
import type { Clock } from '../../clock.js';
import type { Tx } from '../../db/tx.js';
import { inClaimedRounds } from '../../jobs/claimed-rounds.js';
import type { DueWork } from '../../jobs/due-timer.js';
import type { Notice } from '../notifications/delivery.js';
import type { NotificationPlanner } from '../notifications/notification-planner.js';
import type { Alert } from './alert.js';
import type { AlertsRepository } from './alerts.repository.js';

const BATCH = 100;

export interface RemindersRepository {
  /** Claims due reminders (SKIP LOCKED) and moves each to its next time (now + the rule's interval, or never); answers the alerts. */
  claimDue(tx: Tx, at: Date, limit: number): Promise<Alert[]>;
  nextDue(): Promise<Date | null>;
}

export function reminders(deps: {
  repository: RemindersRepository;
  alerts: AlertsRepository;
  planner: NotificationPlanner;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  wakeDispatcher: () => void;
  clock: Clock;
}): DueWork {
  return {
    run: () =>
      inClaimedRounds(deps, BATCH, async (tx, batch) => {
        const due = await deps.repository.claimDue(tx, deps.clock.now(), batch);
        const notices: Notice[] = [];
        for (const alert of due) notices.push({ event: 'alert_reminder', alert, ...(await deps.alerts.noticeFacts(tx, alert)), targets: 'notified', storm: false });
        return { claimed: due.length, planned: await deps.planner.plan(tx, notices) };
      }),
    nextDue: () => deps.repository.nextDue(),
  };
}
