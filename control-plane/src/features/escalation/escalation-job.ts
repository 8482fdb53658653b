// Runs due escalation steps: while the alert is still firing, the step's channels are
// notified and the next step is scheduled; an acknowledged or resolved alert ends it.
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { AlertsRepository } from '../alerting/alerts.repository.js';
import type { NotificationPlanner } from '../notifications/notification-planner.js';
import { nextStep, stepTargets } from './escalation-steps.js';
import type { EscalationRepository } from './escalation.repository.js';

export interface EscalationJob {
  start(): void;
  /** Runs one round now (tests move the clock, then call this). */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

const BATCH = 100;

export function createEscalationJob(deps: {
  escalation: EscalationRepository;
  alerts: AlertsRepository;
  planner: NotificationPlanner;
  clock: Clock;
  logger: Logger;
  wakeDispatcher: () => void;
  intervalMs?: number;
}): EscalationJob {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  async function runOnce(): Promise<number> {
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
  }

  const tick = () => {
    running = runOnce()
      .catch((err) => {
        deps.logger.error({ err }, 'escalation round failed');
        return 0;
      })
      .finally(() => {
        running = undefined;
        if (timer) timer = setTimeout(tick, deps.intervalMs ?? 5_000);
      });
  };

  return {
    start() {
      timer = setTimeout(tick, deps.intervalMs ?? 5_000);
    },
    runOnce,
    async stop() {
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
