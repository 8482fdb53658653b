// Whom an alert notifies first: its rule's channels and teams, else its rule's escalation
// policy's first step (starting the policy's timer), else every channel. Used when an alert
// opens and when a silence that kept it quiet ends.
import type { Tx } from '../../db/tx.js';
import { startEscalation, type NextStep } from '../escalation/escalation-steps.js';
import type { EscalationRepository } from '../escalation/escalation.repository.js';
import { EVERY_CHANNEL, type NotificationTargets } from '../notifications/delivery.js';
import type { Alert } from './alert.js';
import type { AlertRule } from './rule.js';

export interface AlertToNotify {
  alert: Alert;
  /** null: no rule asked for the alert (an agent's), and every channel hears it. */
  rule: AlertRule | null;
}

export type FirstTargets = (tx: Tx, alerts: AlertToNotify[], now: Date) => Promise<Map<string, NotificationTargets>>;

/**
 * The timers are written in the caller's transaction, which commits after this returns: the
 * escalation job is told to look no sooner than this, when they are visible to it (a commit that
 * takes longer is found by the job's longest wait).
 */
const COMMIT_MARGIN_MS = 2_000;

/** `escalationDue` wakes the escalation job (escalation-job.ts) by the time a timer set here falls due. */
export function createFirstTargets(escalation: Pick<EscalationRepository, 'findMany' | 'setTimers'>, escalationDue: (at: Date) => void): FirstTargets {
  return async (tx, opened, now) => {
    const targets = new Map<string, NotificationTargets>();
    const policyIds = new Set<string>();
    for (const { alert, rule } of opened) {
      const { channel_ids: channels, team_ids: teams, escalation_policy_id: policyId } = rule?.condition ?? {};
      if (channels || teams) targets.set(alert.id, { channels: channels ?? [], teams: teams ?? [], recipients: [] });
      else if (policyId) policyIds.add(policyId);
      else targets.set(alert.id, EVERY_CHANNEL);
    }
    if (policyIds.size === 0) return targets;
    const policies = await escalation.findMany(tx, [...policyIds]);
    const timers: (NextStep & { alertId: string; policyId: string })[] = [];
    for (const { alert, rule } of opened) {
      if (targets.has(alert.id)) continue;
      const policy = policies.get(rule!.condition.escalation_policy_id!);
      // A policy of another organization is never used, as if it had been deleted.
      if (!policy || policy.organizationId !== rule!.organizationId) {
        targets.set(alert.id, EVERY_CHANNEL);
        continue;
      }
      const { notifyNow, timer } = startEscalation(policy, now);
      targets.set(alert.id, notifyNow);
      if (timer) timers.push({ ...timer, alertId: alert.id, policyId: policy.id });
    }
    await escalation.setTimers(tx, timers);
    if (timers.length > 0) escalationDue(new Date(Math.max(now.getTime() + COMMIT_MARGIN_MS, Math.min(...timers.map((t) => t.dueAt.getTime())))));
    return targets;
  };
}
