// Runs inside the ingest transaction: opens the alerts a batch of results calls for and
// resolves those of recovered services (after their rule's recovery_threshold of GREEN
// results), for every organization of the batch at once, in a fixed number of statements
// (rules come from the in-memory cache). Maintenance windows and RED dependencies
// (dependency-holds.ts) hold alerts back. A flapping service is told of once: its alert opens
// with a flapping notice, or its open alert gets one, and stays open until it settles. Data
// back from a stale service resolves its no_data alerts. It answers the alerts and the
// notices the notification planner turns into deliveries.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Tx } from '../../db/tx.js';
import type { StoredResult } from '../checks/check-result.js';
import { coversService, type MaintenanceRepository } from '../maintenance/maintenance.repository.js';
import type { Notice } from '../notifications/delivery.js';
import { isStorm, stormWindowStart } from '../notifications/notification-planner.js';
import { decideAlerts, dependedOnLeavingRed, type AlertCandidate } from './alert-decisions.js';
import { heldResult, heldWording } from './dependency-holds.js';
import type { DependencyHoldsRepository, HoldingParent } from './dependency-holds.repository.js';
import type { Alert } from './alert.js';
import type { AlertsRepository, NewAlert } from './alerts.repository.js';
import type { FirstTargets } from './first-targets.js';
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
  holds: DependencyHoldsRepository;
  firstTargets: FirstTargets;
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
      /** Services with an alert open that a result of the batch set flapping. */
      const startedFlapping = new Set<string>();
      for (const r of stored) {
        if (!r.current) continue; // a late result neither opens nor resolves anything
        const list = byOrganization.get(r.organizationId);
        if (list) list.push(r);
        else byOrganization.set(r.organizationId, [r]);
        if (r.startedFlapping && r.serviceAlerting) startedFlapping.add(r.serviceId);
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
      const backWithData = [...latest.values()].filter((r) => r.serviceWasStale).map((r) => r.serviceId);
      if (candidates.length === 0 && recovered.length === 0 && backWithData.length === 0 && startedFlapping.size === 0) return outcome;

      const now = clock.now();
      const organizations = [...new Set([...candidates.map((c) => c.result), ...recovered].map((r) => r.organizationId))];
      const windows = organizations.length > 0 ? await deps.maintenance.activeFor(tx, organizations, now) : new Map();
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
        const storms = await alerts.countOpenedSince(tx, [...new Set(opened.map((a) => a.organizationId))], stormWindowStart(now));
        const targets = await deps.firstTargets(tx, opened.map((alert) => ({ alert, rule: candidateOf(alert).rule })), now);
        for (const alert of opened) {
          const { result } = candidateOf(alert);
          outcome.notices.push({
            event: result.flapping ? 'alert_flapping' : 'alert_fired', alert, service: facts(alert.serviceId!), targets: targets.get(alert.id)!,
            storm: isStorm(storms.get(alert.organizationId) ?? 0), locations: [result.location],
          });
        }
        outcome.fired.push(...opened);
      }

      const recoveries = recovered.map((r) => ({ serviceId: r.serviceId, greenStreak: r.greenStreak }));
      const resolved = [...(await alerts.resolveRecovered(tx, recoveries, now)), ...(await alerts.resolveOfKind(tx, backWithData, 'no_data', now))];
      for (const alert of resolved) {
        const serviceId = alert.serviceId!;
        if (!inMaintenance(serviceId)) outcome.notices.push({ event: 'alert_resolved', alert, service: facts(serviceId), targets: 'notified', storm: false, locations: [latest.get(serviceId)!.location] });
      }
      outcome.resolved.push(...resolved);

      // Those who heard the alert open hear once that its service flaps, then nothing until it settles.
      const justOpened = new Set(opened.map((a) => a.serviceId));
      const flapping = [...startedFlapping].filter((id) => !justOpened.has(id) && !inMaintenance(id));
      for (const alert of await alerts.openOfServices(tx, flapping)) {
        outcome.notices.push({ event: 'alert_flapping', alert, service: facts(alert.serviceId!), targets: 'notified', storm: false, locations: [latest.get(alert.serviceId!)!.location] });
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
}

const CHECK_VERDICT = { RED: 'check failed', YELLOW: 'check slow', GREEN: 'check matched' } as const;

function newAlert(rule: AlertRule, result: StoredResult, now: Date, heldBy?: HoldingParent[]): NewAlert {
  const repeatMinutes = rule.condition.repeat_interval_minutes;
  return {
    id: randomUUID(),
    organizationId: result.organizationId,
    kind: 'service',
    serviceId: result.serviceId,
    serviceName: result.serviceName,
    alertRuleId: rule.id,
    agentId: null,
    location: null,
    severity: rule.severity,
    title: `${result.serviceName} is ${result.serviceStatus}`,
    message: `${CHECK_VERDICT[result.status]}: ${result.message} (response time ${Math.round(result.responseTimeMs)} ms, location ${result.location}, rule "${rule.name}")${
      heldBy ? `; ${heldWording(heldBy)}` : ''
    }`,
    silencedBy: null,
    firedAt: now,
    remindAt: repeatMinutes ? new Date(now.getTime() + repeatMinutes * 60_000) : null,
  };
}
