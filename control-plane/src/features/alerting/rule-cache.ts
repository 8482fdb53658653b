// Enabled rules per organization, kept in memory so that evaluating a result costs no query.
// Every change to a rule invalidates its organization's entry.
import type { AlertRule } from './rule.js';

export interface RuleCache {
  /**
   * The rules of each organization; `load` runs once for those not cached (the caller passes
   * one bound to its own transaction) and answers their rules together.
   */
  forOrganizations(organizationIds: string[], load: (missing: string[]) => Promise<AlertRule[]>): Promise<Map<string, AlertRule[]>>;
  invalidate(organizationId: string): void;
  /** Forgets every organization's rules (changes may have been missed). */
  clear(): void;
}

export function createRuleCache(): RuleCache {
  const entries = new Map<string, Promise<AlertRule[]>>();
  return {
    async forOrganizations(organizationIds, load) {
      const missing = organizationIds.filter((id) => !entries.has(id));
      if (missing.length > 0) {
        const loading = load(missing);
        for (const id of missing) {
          const entry = loading.then((rules) => rules.filter((r) => r.organizationId === id));
          entries.set(id, entry);
          // A failed load is not cached: the next result tries again.
          entry.catch(() => entries.get(id) === entry && entries.delete(id));
        }
      }
      return new Map(await Promise.all(organizationIds.map(async (id) => [id, await entries.get(id)!] as const)));
    },
    invalidate(organizationId) {
      entries.delete(organizationId);
    },
    clear() {
      entries.clear();
    },
  };
}
