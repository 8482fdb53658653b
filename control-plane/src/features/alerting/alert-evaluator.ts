// Runs inside the ingest transaction: decides which alerts open and which resolve for a
// batch of results, and writes them with their outbox rows. Rules come from the in-memory
// cache, so a batch costs no query per rule.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Tx } from '../../db/tx.js';
import type { StoredResult } from '../checks/check-results.repository.js';
import { startEscalation } from '../escalation/escalation-steps.js';
import type { EscalationRepository } from '../escalation/escalation.repository.js';
import { coversService, type MaintenanceRepository } from '../maintenance/maintenance.repository.js';
import { isStorm, stormWindowStart, type NotificationPlanner, type ServiceFacts } from '../notifications/notification-planner.js';
import type { Alert } from './alert.js';
import type { AlertsRepository, NewAlert } from './alerts.repository.js';
import { ruleMatches, type AlertRule } from './rule.js';
import type { RuleCache } from './rule-cache.js';
import type { RulesRepository } from './rules.repository.js';
import { EVERY_CHANNEL, type NotificationTargets } from '../notifications/delivery.js';

export interface AlertEffects {
  fired: Alert[];
  resolved: Alert[];
}

export interface AlertEvaluatorDeps {
  rules: RulesRepository;
  cache: RuleCache;
  alerts: AlertsRepository;
  maintenance: MaintenanceRepository;
  escalation: EscalationRepository;
  planner: NotificationPlanner;
  clock: Clock;
}

export function createAlertEvaluator(deps: AlertEvaluatorDeps) {
  const { alerts, planner, clock } = deps;

  async function evaluateOrganization(tx: Tx, organizationId: string, results: StoredResult[], effects: AlertEffects): Promise<void> {
    const rules = await deps.cache.forOrganization(organizationId, () => deps.rules.listEnabled(organizationId, tx));
    const now = clock.now();
    const matches = new Map<string, { rule: AlertRule; result: StoredResult }>();
    const latest = new Map<string, StoredResult>();
    const troubled = new Set<string>();
    for (const result of results) {
      const matched = rules.filter((rule) => ruleMatches(rule, result));
      for (const rule of matched) {
        const key = `${rule.id}/${result.serviceId}`;
        if (!matches.has(key)) matches.set(key, { rule, result });
      }
      if ((result.previousStatus !== null && result.previousStatus !== 'GREEN') || matched.length > 0) troubled.add(result.serviceId);
      latest.set(result.serviceId, result);
    }
    // A service back to GREEN, matching no rule, resolves its open alerts. Latency rules can
    // open alerts on GREEN results, so with those any GREEN result may be a recovery.
    const latencyRules = rules.some((rule) => rule.condition.response_time_ms_above != null);
    const recovered = [...latest.values()].filter(
      (r) => r.serviceStatus === 'GREEN' && (latencyRules || troubled.has(r.serviceId)) && !rules.some((rule) => ruleMatches(rule, r)),
    );
    if (matches.size === 0 && recovered.length === 0) return;

    const windows = await deps.maintenance.active(tx, organizationId, now);
    const facts = (r: StoredResult): ServiceFacts => ({ id: r.serviceId, name: r.serviceName, endpoint: r.serviceEndpoint, status: latest.get(r.serviceId)?.serviceStatus ?? r.serviceStatus });

    const candidates = [...matches.values()].filter((m) => !coversService(windows, m.result.serviceId));
    const opened = await alerts.open(tx, candidates.map((m) => newAlert(m.rule, m.result, now)));
    if (opened.length > 0) {
      const storm = isStorm(await alerts.countOpenedSince(tx, organizationId, stormWindowStart(now)));
      const byKey = new Map(candidates.map((m) => [`${m.rule.id}/${m.result.serviceId}`, m]));
      for (const alert of opened) {
        const { rule, result } = byKey.get(`${alert.alertRuleId}/${alert.serviceId}`)!;
        await planner.enqueue(tx, 'alert_fired', alert, facts(result), await firstTargets(tx, rule, alert, now), storm);
      }
      effects.fired.push(...opened);
    }

    const resolved = await alerts.resolveOpen(tx, recovered.map((r) => r.serviceId), now);
    for (const alert of resolved) {
      await deps.escalation.clearTimer(tx, alert.id);
      if (!coversService(windows, alert.serviceId)) {
        await planner.enqueue(tx, 'alert_resolved', alert, facts(latest.get(alert.serviceId)!), await alerts.notifiedTargets(tx, alert.id), false);
      }
    }
    effects.resolved.push(...resolved);
  }

  /** The rule's channels and teams, else its escalation policy's first step, else every channel. */
  async function firstTargets(tx: Tx, rule: AlertRule, alert: Alert, now: Date): Promise<NotificationTargets> {
    const { channel_ids: channels, team_ids: teams } = rule.condition;
    if (channels || teams) return { channels: channels ?? [], teams: teams ?? [], recipients: [] };
    const policyId = rule.condition.escalation_policy_id;
    const policy = policyId ? await deps.escalation.find(rule.organizationId, policyId, tx) : null;
    if (!policy) return EVERY_CHANNEL;
    const { notifyNow, timer } = startEscalation(policy, now);
    if (timer) await deps.escalation.setTimer(tx, alert.id, policy.id, timer.stepIndex, timer.round, timer.dueAt);
    return notifyNow;
  }

  return {
    async onResults(tx: Tx, stored: StoredResult[]): Promise<AlertEffects> {
      const effects: AlertEffects = { fired: [], resolved: [] };
      const byOrganization = new Map<string, StoredResult[]>();
      for (const r of stored) {
        if (!r.current) continue; // a late result neither opens nor resolves anything
        byOrganization.set(r.organizationId, [...(byOrganization.get(r.organizationId) ?? []), r]);
      }
      for (const [organizationId, results] of byOrganization) await evaluateOrganization(tx, organizationId, results, effects);
      return effects;
    },
  };
}

export type AlertEvaluator = ReturnType<typeof createAlertEvaluator>;

const CHECK_VERDICT = { RED: 'check failed', YELLOW: 'check slow', GREEN: 'check matched' } as const;

function newAlert(rule: AlertRule, result: StoredResult, now: Date): NewAlert {
  return {
    id: randomUUID(),
    organizationId: result.organizationId,
    serviceId: result.serviceId,
    serviceName: result.serviceName,
    alertRuleId: rule.id,
    severity: rule.severity,
    title: `${result.serviceName} is ${result.serviceStatus}`,
    message: `${CHECK_VERDICT[result.status]}: ${result.message} (response time ${Math.round(result.responseTimeMs)} ms, location ${result.location}, rule "${rule.name}")`,
    firedAt: now,
  };
}

