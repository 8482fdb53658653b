// Enabled rules per organization, kept in memory so that evaluating a result costs no query.
// Every change to a rule invalidates its organization's entry.
import type { AlertRule } from './rule.js';

export interface RuleCache {
  /** `load` runs on a miss; the caller passes one bound to its own transaction. */
  forOrganization(organizationId: string, load: () => Promise<AlertRule[]>): Promise<AlertRule[]>;
  invalidate(organizationId: string): void;
}

export function createRuleCache(): RuleCache {
  const entries = new Map<string, Promise<AlertRule[]>>();
  return {
    forOrganization(organizationId, load) {
      let entry = entries.get(organizationId);
      if (!entry) {
        entry = load();
        entries.set(organizationId, entry);
        // A failed load is not cached: the next result tries again.
        entry.catch(() => entries.get(organizationId) === entry && entries.delete(organizationId));
      }
      return entry;
    },
    invalidate(organizationId) {
      entries.delete(organizationId);
    },
  };
}
