// Decides which services have gone without data and which no_data rules fire on them. A
// service that should be checked (not paused, with locations) is stale once it has had no
// result for three intervals and at least 90 s, counted from its last result, or from when it
// could last have been checked (created or changed, an agent of its location connected, this
// control plane started), or at once when every location it is checked from is dark: then the
// location's alert speaks for it and no no_data alert opens. Pure.
import { ruleCovers, type AlertRule } from '../alerting/rule.js';
import type { SelectableService } from '../services/service-selector.js';
import { placeKey } from './sighting.js';

/** The shortest time without data that makes a service stale. */
export const MIN_STALE_MS = 90_000;

export function staleAfterMs(checkIntervalSeconds: number): number {
  return Math.max(3 * checkIntervalSeconds * 1000, MIN_STALE_MS);
}

/** A service the watchdog looks at: overdue, stale already, or checked from a dark location. */
export interface WatchedService extends SelectableService {
  organizationId: string;
  name: string;
  endpoint: string;
  status: string | null;
  checkIntervalSeconds: number;
  lastResultAt: Date | null;
  createdAt: Date;
  stale: boolean;
  /** When it is stale without a result (see the header). */
  dueAt: Date;
  /** The no_data rules that alerted on it since its last result (one alert per rule and time without data). */
  alertedRules: string[];
}

export interface StaleVerdicts {
  /** Services to mark stale now. */
  markStale: WatchedService[];
  /** no_data alerts to open. */
  noData: { service: WatchedService; rule: AlertRule }[];
}

export function judgeServices({ services, dark, rules, inMaintenance, now }: {
  services: WatchedService[];
  /** placeKey of the dark (organization, location) pairs. */
  dark: ReadonlySet<string>;
  rules: ReadonlyMap<string, readonly AlertRule[]>;
  inMaintenance: (service: WatchedService) => boolean;
  now: Date;
}): StaleVerdicts {
  const verdicts: StaleVerdicts = { markStale: [], noData: [] };
  for (const service of services) {
    const darkened = service.locations.length > 0 && service.locations.every((l) => dark.has(placeKey(service.organizationId, l)));
    const overdue = service.dueAt.getTime() <= now.getTime();
    if (!darkened && !overdue) continue;
    if (!service.stale) verdicts.markStale.push(service);
    if (darkened || !overdue || inMaintenance(service)) continue;
    for (const rule of rules.get(service.organizationId) ?? []) {
      if (rule.enabled && rule.condition.no_data === true && !service.alertedRules.includes(rule.id) && ruleCovers(rule, service)) verdicts.noData.push({ service, rule });
    }
  }
  return verdicts;
}
