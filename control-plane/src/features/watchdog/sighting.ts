// What the watchdog knows of agents and of where organizations are checked from, and the few
// predicates every decision about silent agents rests on. Pure: times come in as arguments.

/** An agent that connected at least once (agent_sightings). */
export interface Sighting {
  agentId: string;
  /** null for a platform agent (the shared AGENT_TOKEN), which serves every organization. */
  organizationId: string | null;
  /** A registered agent's name, else the hostname it gave, else its id. */
  name: string;
  location: string;
  firstSeenAt: Date;
  /** The last moment it was known connected (for a session on a replica that died, the end of that replica's lease). */
  lastSeenAt: Date;
  /** When the watchdog found it offline; null while it is online or within its grace. */
  offlineAt: Date | null;
  /** Has a session on a replica whose lease is alive. */
  live: boolean;
}

/** An organization's unpaused services at one location. */
export interface Place {
  organizationId: string;
  location: string;
  /** When the first of them was created. */
  since: Date;
  /** Until when they were checked there, or waiting to be: the latest change or result of one of them, plus the time that makes it stale. */
  activeUntil: Date;
}

export interface PresenceRules {
  /** AGENT_OFFLINE_SECONDS, in ms. */
  offlineMs: number;
  /** When this control plane started: no agent could reconnect to it before, so no grace starts earlier. */
  notBefore: Date;
}

/** When an agent without a session counts as offline. */
export function deadlineOf(s: Sighting, rules: PresenceRules): number {
  return Math.max(s.lastSeenAt.getTime(), rules.notBefore.getTime()) + rules.offlineMs;
}

/** Connected, or not yet silent for AGENT_OFFLINE_SECONDS. */
export function isOnline(s: Sighting, now: Date, rules: PresenceRules): boolean {
  return s.live || deadlineOf(s, rules) > now.getTime();
}

export function serves(s: Sighting, organizationId: string): boolean {
  return s.organizationId === null || s.organizationId === organizationId;
}

/**
 * Whose alert an agent's silence is: a registered agent's organization's; a platform agent's,
 * the organizations it could have been checking, whose services at its location existed while
 * it was connected (created before it was last seen, and still checked or waiting to be when it
 * first came). A platform agent gone before an organization arrived is not that organization's
 * loss, nor is one that came after an organization's checks there had stopped.
 */
export function answersTo(s: Sighting, place: Place): boolean {
  if (s.organizationId !== null) return s.organizationId === place.organizationId;
  return s.lastSeenAt.getTime() >= place.since.getTime() && s.firstSeenAt.getTime() <= place.activeUntil.getTime();
}

export const placeKey = (organizationId: string, location: string) => `${organizationId} ${location}`;
