// Runs inside the ingest transaction: opens the alerts a batch of results calls for and
// resolves those of recovered services, for every organization of the batch at once, in a
// fixed number of statements (rules come from the in-memory cache). Maintenance windows and
// RED dependencies (dependency-holds.ts) hold alerts back. It answers the alerts and the
// notices the notification planner turns into deliveries.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Tx } from '../../db/tx.js';
import type { StoredResult } from '../checks/check-result.js';
import { startEscalation, type NextStep } from '../escalation/escalation-steps.js';
import type { EscalationRepository } from '../escalation/escalation.repository.js';
import { coversService, type MaintenanceRepository } from '../maintenance/maintenance.repository.js';
import { EVERY_CHANNEL, type Notice, type NotificationTargets } from '../notifications/delivery.js';
import { isStorm, stormWindowStart } from '../notifications/notification-planner.js';
import { decideAlerts, dependedOnLeavingRed, type AlertCandidate } from './alert-decisions.js';
import { heldResult, heldWording } from './dependency-holds.js';
import type { DependencyHoldsRepository, HoldingParent } from './dependency-holds.repository.js';
import type { Alert } from './alert.js';
import type { AlertsRepository, NewAlert } from './alerts.repository.js';
import type { AlertRule } from './rule.js';
import type { RuleCache } from './rule-cache.js';
import type { RulesRepository } from './rules.repository.js';

export interface AlertOutcome {
  fired: Alert[];
  resolved: Alert[];
  /** Who must hear of them: handed to the notification planner in the same transaction. */
  notices: Notice[];
}

export interface AlertEvaluatorDeps {
  rules: RulesRepository;
  cache: RuleCache;
  alerts: AlertsRepository;
  maintenance: MaintenanceRepository;
  escalation: EscalationRepository;
  holds: DependencyHoldsRepository;
  clock: Clock;
}

export interface AlertEvaluator {
  evaluate(tx: Tx, stored: StoredResult[]): Promise<AlertOutcome>;
}

export function createAlertEvaluator(deps: AlertEvaluatorDeps): AlertEvaluator {
  const { alerts, clock } = deps;

  return {
    async evaluate(tx, stored) {
      const outcome: AlertOutcome = { fired: [], resolved: [], notices: [] };
      const byOrganization = new Map<string, StoredResult[]>();
      for (const r of stored) {
        if (!r.current) continue; // a late result neither opens nor resolves anything
        const list = byOrganization.get(r.organizationId);
        if (list) list.push(r);
        else byOrganization.set(r.organizationId, [r]);
      }
      if (byOrganization.size === 0) return outcome;
      const rules = await deps.cache.forOrganizations([...byOrganization.keys()], (missing) => deps.rules.listEnabledFor(tx, missing));

      const candidates: AlertCandidate[] = [];
      const recovered: StoredResult[] = [];
      const latest = new Map<string, StoredResult>();
      for (const [organizationId, results] of byOrganization) {
        const decided = decideAlerts(rules.get(organizationId) ?? [], results);
        candidates.push(...decided.candidates);
        recovered.push(...decided.recovered);
        for (const [serviceId, r] of decided.latest) latest.set(serviceId, r);
      }
      const held = await heldCandidates(tx, dependedOnLeavingRed(stored), latest, rules);
      for (const candidate of held.candidates) {
        candidates.push(candidate);
        latest.set(candidate.result.serviceId, candidate.result);
      }
      if (candidates.length === 0 && recovered.length === 0) return outcome;

      const now = clock.now();
      const organizations = [...new Set([...candidates.map((c) => c.result), ...recovered].map((r) => r.organizationId))];
      const windows = await deps.maintenance.activeFor(tx, organizations, now);
      const inMaintenance = (serviceId: string) => coversService(windows.get(latest.get(serviceId)!.organizationId) ?? [], serviceId);
      const facts = (serviceId: string) => {
        const r = latest.get(serviceId)!;
        return { id: r.serviceId, name: r.serviceName, endpoint: r.serviceEndpoint, status: r.serviceStatus };
      };

      const fresh = candidates.filter((c) => !held.heldBy.has(c.result.serviceId)).map((c) => c.result.serviceId);
      const redParents = await deps.holds.redDependencies(tx, [...new Set(fresh)]);
      const opening = candidates.filter((c) => !inMaintenance(c.result.serviceId) && !redParents.has(c.result.serviceId));
      const opened = await alerts.open(tx, opening.map((c) => newAlert(c.rule, c.result, now, held.heldBy.get(c.result.serviceId))));
      if (opened.length > 0) {
        const byKey = new Map(opening.map((c) => [`${c.rule.id}/${c.result.serviceId}`, c]));
        const candidateOf = (alert: Alert) => byKey.get(`${alert.alertRuleId}/${alert.serviceId}`)!;
        const ruleOf = (alert: Alert) => candidateOf(alert).rule;
        const storms = await alerts.countOpenedSince(tx, [...new Set(opened.map((a) => a.organizationId))], stormWindowStart(now));
        const targets = await firstTargets(tx, opened.map((alert) => ({ alert, rule: ruleOf(alert) })), now);
        for (const alert of opened) {
          outcome.notices.push({ event: 'alert_fired', alert, service: facts(alert.serviceId), targets: targets.get(alert.id)!, storm: isStorm(storms.get(alert.organizationId) ?? 0), locations: [candidateOf(alert).result.location] });
        }
        outcome.fired.push(...opened);
      }

      const resolved = await alerts.resolveOpen(tx, recovered.map((r) => r.serviceId), now);
      if (resolved.length > 0) {
        await deps.escalation.clearTimers(tx, resolved.map((a) => a.id));
        for (const alert of resolved) {
          if (!inMaintenance(alert.serviceId)) outcome.notices.push({ event: 'alert_resolved', alert, service: facts(alert.serviceId), targets: 'notified', storm: false, locations: [latest.get(alert.serviceId)!.location] });
        }
        outcome.resolved.push(...resolved);
      }
      return outcome;
    },
  };

  /**
   * The alerts the dependents of services that just left RED open now, the RED having held
   * them: each dependent's standing state against its organization's rules.
   */
  async function heldCandidates(tx: Tx, leftRed: string[], judged: Map<string, StoredResult>, rules: Map<string, readonly AlertRule[]>) {
    const held = { candidates: [] as AlertCandidate[], heldBy: new Map<string, HoldingParent[]>() };
    if (leftRed.length === 0) return held;
    for (const dependent of await deps.holds.heldDependents(tx, leftRed, [...judged.keys()])) {
      // A dependent's organization is its parent's, whose rules the batch already loaded.
      const { candidates } = decideAlerts(rules.get(dependent.organizationId) ?? [], [heldResult(dependent)]);
      if (candidates.length === 0) continue;
      held.candidates.push(...candidates);
      held.heldBy.set(dependent.serviceId, dependent.heldBy);
    }
    return held;
  }

  /**
   * Whom each opened alert notifies first: its rule's channels and teams, else its escalation
   * policy's first step (starting the policy's timer), else every channel.
   */
  async function firstTargets(tx: Tx, opened: { alert: Alert; rule: AlertRule }[], now: Date): Promise<Map<string, NotificationTargets>> {
    const targets = new Map<string, NotificationTargets>();
    const policyIds = new Set<string>();
    for (const { alert, rule } of opened) {
      const { channel_ids: channels, team_ids: teams, escalation_policy_id: policyId } = rule.condition;
      if (channels || teams) targets.set(alert.id, { channels: channels ?? [], teams: teams ?? [], recipients: [] });
      else if (policyId) policyIds.add(policyId);
      else targets.set(alert.id, EVERY_CHANNEL);
    }
    if (policyIds.size === 0) return targets;
    const policies = await deps.escalation.findMany(tx, [...policyIds]);
    const timers: (NextStep & { alertId: string; policyId: string })[] = [];
    for (const { alert, rule } of opened) {
      if (targets.has(alert.id)) continue;
      const policy = policies.get(rule.condition.escalation_policy_id!);
      // A policy of another organization is never used, as if it had been deleted.
      if (!policy || policy.organizationId !== rule.organizationId) {
        targets.set(alert.id, EVERY_CHANNEL);
        continue;
      }
      const { notifyNow, timer } = startEscalation(policy, now);
      targets.set(alert.id, notifyNow);
      if (timer) timers.push({ ...timer, alertId: alert.id, policyId: policy.id });
    }
    await deps.escalation.setTimers(tx, timers);
    return targets;
  }
}

const CHECK_VERDICT = { RED: 'check failed', YELLOW: 'check slow', GREEN: 'check matched' } as const;

function newAlert(rule: AlertRule, result: StoredResult, now: Date, heldBy?: HoldingParent[]): NewAlert {
  return {
    id: randomUUID(),
    organizationId: result.organizationId,
    serviceId: result.serviceId,
    serviceName: result.serviceName,
    alertRuleId: rule.id,
    severity: rule.severity,
    title: `${result.serviceName} is ${result.serviceStatus}`,
    message: `${CHECK_VERDICT[result.status]}: ${result.message} (response time ${Math.round(result.responseTimeMs)} ms, location ${result.location}, rule "${rule.name}")${
      heldBy ? `; ${heldWording(heldBy)}` : ''
    }`,
    firedAt: now,
  };
}
