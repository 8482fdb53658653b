// Where an alert's escalation goes next. Delays are relative to the previous step; a policy
// that repeats starts over from its first step (never sooner than a minute, so a policy of
// zero delays cannot spin).
import type { NotificationTargets } from '../notifications/delivery.js';
import type { EscalationPolicy, EscalationStep } from './policy.js';
import { extraRounds } from './policy.js';

export interface NextStep {
  stepIndex: number;
  round: number;
  dueAt: Date;
}

const MINUTE_MS = 60_000;

export function nextStep(policy: EscalationPolicy, stepIndex: number, round: number, from: Date): NextStep | null {
  if (stepIndex + 1 < policy.steps.length) {
    return { stepIndex: stepIndex + 1, round, dueAt: new Date(from.getTime() + policy.steps[stepIndex + 1]!.delay_minutes * MINUTE_MS) };
  }
  if (round < extraRounds(policy)) {
    return { stepIndex: 0, round: round + 1, dueAt: new Date(from.getTime() + Math.max(1, policy.steps[0]!.delay_minutes) * MINUTE_MS) };
  }
  return null;
}

/** Whom a step notifies: its channels and the members of its teams. */
export function stepTargets(step: EscalationStep): NotificationTargets {
  return { channels: step.channel_ids, teams: step.team_ids ?? [], recipients: [] };
}

const NOBODY: NotificationTargets = { channels: [], teams: [], recipients: [] };

/** Whom to notify when the alert opens, and the first timer, if any. */
export function startEscalation(policy: EscalationPolicy, openedAt: Date): { notifyNow: NotificationTargets; timer: NextStep | null } {
  const first = policy.steps[0]!;
  if (first.delay_minutes > 0) {
    return { notifyNow: NOBODY, timer: { stepIndex: 0, round: 0, dueAt: new Date(openedAt.getTime() + first.delay_minutes * MINUTE_MS) } };
  }
  return { notifyNow: stepTargets(first), timer: nextStep(policy, 0, 0, openedAt) };
}
