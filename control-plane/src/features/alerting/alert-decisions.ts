// Which alerts a batch of results opens and which services it recovers: pure, over the
// organization's enabled rules. The evaluator then writes the decisions in a fixed number of
// statements for the whole batch.
import type { StoredResult } from '../checks/check-result.js';
import { ruleMatches, type AlertRule } from './rule.js';

export interface AlertCandidate {
  rule: AlertRule;
  /** The first result of the batch that matched the rule for its service. */
  result: StoredResult;
}

export interface AlertDecisions {
  candidates: AlertCandidate[];
  /**
   * The latest result of each service back to GREEN, matching no rule, not flapping and with
   * an alert open: its open alerts resolve once their rule's recovery_threshold is reached.
   */
  recovered: StoredResult[];
  /** The latest result of each service in the batch. */
  latest: Map<string, StoredResult>;
}

/** `results` are one organization's current results in checked_at order. */
export function decideAlerts(rules: readonly AlertRule[], results: readonly StoredResult[]): AlertDecisions {
  const candidates = new Map<string, AlertCandidate>();
  const latest = new Map<string, StoredResult>();
  /** Services that had an alert open, or may open one in this batch. */
  const alerting = new Set<string>();
  for (const result of results) {
    if (result.serviceAlerting) alerting.add(result.serviceId);
    for (const rule of rules) {
      if (!ruleMatches(rule, result)) continue;
      alerting.add(result.serviceId);
      const key = `${rule.id}/${result.serviceId}`;
      if (!candidates.has(key)) candidates.set(key, { rule, result });
    }
    latest.set(result.serviceId, result);
  }
  // GREEN is not enough: a latency rule can match a GREEN result. A flapping service keeps
  // its alert until it settles, so that people hear of it once.
  const recovered = [...latest.values()].filter(
    (r) => r.serviceStatus === 'GREEN' && !r.flapping && alerting.has(r.serviceId) && !rules.some((rule) => ruleMatches(rule, r)),
  );
  return { candidates: [...candidates.values()], recovered, latest };
}

/**
 * The services with dependents whose status the batch took out of RED (RED before its first
 * current result, not RED after its last): their dependents' held alerts are judged afresh.
 * Services nothing depends on are left out, so most batches need no look at dependents.
 */
export function dependedOnLeavingRed(results: readonly StoredResult[]): string[] {
  const before = new Map<string, StoredResult['previousStatus']>();
  const after = new Map<string, StoredResult['serviceStatus']>();
  for (const r of results) {
    if (!r.current || !r.serviceHasDependents) continue;
    if (!before.has(r.serviceId)) before.set(r.serviceId, r.previousStatus);
    after.set(r.serviceId, r.serviceStatus);
  }
  return [...after].filter(([id, status]) => before.get(id) === 'RED' && status !== 'RED').map(([id]) => id);
}
