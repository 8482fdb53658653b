// Applies an organization's silences to its open alerts: each alert is marked with the
// silence covering its service (or none). An alert still firing that no silence covers any
// more notifies now, as it would have when it opened: its rule's channels, teams or
// escalation policy. Run when a silence is made, changed or expired, and when one starts or
// ends (silence-boundaries.ts); idempotent, so a replica repeating it changes nothing.
import type { Clock } from '../../clock.js';
import type { Tx } from '../../db/tx.js';
import type { AlertsRepository } from '../alerting/alerts.repository.js';
import type { FirstTargets } from '../alerting/first-targets.js';
import type { RuleCache } from '../alerting/rule-cache.js';
import type { RulesRepository } from '../alerting/rules.repository.js';
import type { Notice } from '../notifications/delivery.js';
import type { NotificationPlanner } from '../notifications/notification-planner.js';
import { coveringSilence } from './silence.js';
import type { SilenceChange, SilencesRepository } from './silences.repository.js';

export interface SilenceApplier {
  /** Answers how many deliveries it planned. */
  apply(tx: Tx, organizationIds: string[]): Promise<number>;
}

export function createSilenceApplier(deps: {
  silences: SilencesRepository;
  alerts: AlertsRepository;
  rules: RulesRepository;
  ruleCache: RuleCache;
  firstTargets: FirstTargets;
  planner: NotificationPlanner;
  clock: Clock;
}): SilenceApplier {
  return {
    async apply(tx, organizationIds) {
      if (organizationIds.length === 0) return 0;
      const now = deps.clock.now();
      const active = await deps.silences.activeFor(tx, organizationIds, now);
      const changes: SilenceChange[] = [];
      const released: { alertId: string; ruleId: string | null }[] = [];
      for (const alert of await deps.silences.openAlertsOf(tx, organizationIds)) {
        const silencedBy = coveringSilence(active.get(alert.organizationId) ?? [], alert.service)?.id ?? null;
        if (silencedBy === alert.silencedBy) continue;
        if (silencedBy === null && alert.status === 'firing') released.push({ alertId: alert.id, ruleId: alert.alertRuleId });
        else changes.push({ alertId: alert.id, silencedBy });
      }
      const rules = released.length > 0 ? await deps.ruleCache.forOrganizations(organizationIds, (missing) => deps.rules.listEnabledFor(tx, missing)) : new Map();
      const ruleById = new Map([...rules.values()].flat().map((r) => [r.id, r]));
      for (const { alertId, ruleId } of released) {
        // Reminders start again from now, not from an interval that passed in silence.
        const minutes = ruleId ? ruleById.get(ruleId)?.condition.repeat_interval_minutes : null;
        changes.push({ alertId, silencedBy: null, remindAt: minutes ? new Date(now.getTime() + minutes * 60_000) : null });
      }
      await deps.silences.setSilenced(tx, changes);
      if (released.length === 0) return 0;

      // A rule disabled or deleted meanwhile asks nobody to hear of its alert.
      const alerts = (await deps.alerts.findManyInTx(tx, released.map((r) => r.alertId))).filter((a) => a.alertRuleId && ruleById.has(a.alertRuleId));
      const targets = await deps.firstTargets(tx, alerts.map((alert) => ({ alert, rule: ruleById.get(alert.alertRuleId!)! })), now);
      const notices: Notice[] = [];
      for (const alert of alerts) {
        notices.push({ event: 'alert_fired', alert, ...(await deps.alerts.noticeFacts(tx, alert)), targets: targets.get(alert.id)!, storm: false });
      }
      return deps.planner.plan(tx, notices);
    },
  };
}
