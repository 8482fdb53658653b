// Entering an organization with a session that began elsewhere (switching, or refreshing into
// it) meets the rules of signing in there: "SSO required" and "a second factor required".
import type { Actor } from '../auth/actor.js';

export type OrganizationEntry = (actor: Actor, organizationId: string, address: string | null) => Promise<void>;

export function organizationEntry(...gates: OrganizationEntry[]): OrganizationEntry {
  return async (actor, organizationId, address) => {
    for (const gate of gates) await gate(actor, organizationId, address);
  };
}
