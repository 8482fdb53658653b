// Runs due escalation steps: while the alert is still firing, the step's channels are
// notified and the next step is scheduled; an acknowledged or resolved alert ends it. Driven
// by a due timer (jobs/due-timer.ts): it wakes for the earliest step due, and is nudged when an
// alert opens with a policy (first-targets.ts).
import type { Clock } from '../../clock.js';
import type { DueWork } from '../../jobs/due-timer.js';
import type { AlertsRepository } from '../alerting/alerts.repository.js';
import type { NotificationPlanner } from '../notifications/notification-planner.js';
import { nextStep, stepTargets } from './escalation-steps.js';
import type { EscalationRepository } from './escalation.repository.js';

const BATCH = 100;

export function escalationSteps(deps: {
  escalation: EscalationRepository;
  alerts: AlertsRepository;
  planner: NotificationPlanner;
  clock: Clock;
  wakeDispatcher: () => void;
}): DueWork {
  return {
    async run() {
      let notified = 0;
      await deps.escalation.withDueTimers(deps.clock.now(), BATCH, async (tx, due) => {
        const alert = await deps.alerts.findInTx(tx, due.alertId);
        // A silenced alert's policy starts again from its first step when the silence ends.
        if (!alert || alert.status !== 'firing' || alert.silencedBy) return deps.escalation.clearTimers(tx, [due.alertId]);
        const step = due.policy.steps[due.stepIndex];
        if (step) {
          notified += await deps.planner.plan(tx, [{ event: 'alert_fired', alert, ...(await deps.alerts.noticeFacts(tx, alert)), targets: stepTargets(step), storm: false }]);
        }
        const next = nextStep(due.policy, due.stepIndex, due.round, due.dueAt);
        if (next) await deps.escalation.setTimers(tx, [{ alertId: alert.id, policyId: due.policy.id, ...next }]);
        else await deps.escalation.clearTimers(tx, [alert.id]);
      });
      if (notified > 0) deps.wakeDispatcher();
      return notified;
    },
    nextDue: () => deps.escalation.nextDue(),
  };
}
