// Decides, from the agents' sightings and the organizations' places, which agents fall silent
// now and whom their silence alerts: each organization hears of a silent agent once, or of
// its location once when the location went dark for it (every agent serving it there
// offline), instead of once per agent. Alerts open only when an agent is declared offline
// (or a dark location partly returns), so a person who resolves one by hand is not alerted
// again every round; they resolve when what they speak of is true no more. Pure.
import type { Alert } from '../alerting/alert.js';
import { answersTo, deadlineOf, isOnline, placeKey, serves, type Place, type PresenceRules, type Sighting } from './sighting.js';

export type WatchAlertPlan =
  | { kind: 'agent_offline'; organizationId: string; sighting: Sighting }
  | { kind: 'location_offline'; organizationId: string; location: string; lastSeenAt: Date };

export interface AgentVerdicts {
  /** Open agent and location alerts to resolve. */
  resolve: Alert[];
  open: WatchAlertPlan[];
  /** placeKey of every (organization, location) that is dark now. */
  dark: Set<string>;
}

/**
 * The agents to declare offline now: past their deadline without a session. While another
 * agent of the same location is still within its grace, the location's agents wait for it,
 * so that agents stopping together make one location alert rather than an agent alert first.
 */
export function dueOffline(sightings: Sighting[], now: Date, rules: PresenceRules): Sighting[] {
  const waiting = new Set(sightings.filter((s) => !s.live && s.offlineAt === null && deadlineOf(s, rules) > now.getTime()).map((s) => s.location));
  return sightings.filter((s) => s.offlineAt === null && !isOnline(s, now, rules) && !waiting.has(s.location));
}

/** `declared`: the agents this round declared offline (their offlineAt already set). */
export function judgeAgents({ sightings, places, open, declared, now, rules }: {
  sightings: Sighting[];
  places: Place[];
  open: Alert[];
  declared: Sighting[];
  now: Date;
  rules: PresenceRules;
}): AgentVerdicts {
  const byId = new Map(sightings.map((s) => [s.agentId, s]));
  const atLocation = new Map<string, Sighting[]>();
  for (const s of sightings) atLocation.set(s.location, [...(atLocation.get(s.location) ?? []), s]);
  const placeOf = new Map(places.map((p) => [placeKey(p.organizationId, p.location), p]));
  const here = (p: Place) => atLocation.get(p.location) ?? [];
  const anyOnline = (p: Place) => here(p).some((s) => serves(s, p.organizationId) && isOnline(s, now, rules));
  const isDark = (p: Place) => !anyOnline(p) && here(p).some((s) => s.offlineAt !== null && answersTo(s, p));
  const dark = new Set(places.filter(isDark).map((p) => placeKey(p.organizationId, p.location)));
  /** When the last agent serving the place was seen. */
  const lastSeen = (p: Place) => new Date(Math.max(...here(p).filter((s) => serves(s, p.organizationId)).map((s) => s.lastSeenAt.getTime())));

  const verdicts: AgentVerdicts = { resolve: [], open: [], dark };
  const planned = new Set<string>();
  const plan = (key: string, alert: WatchAlertPlan) => {
    if (planned.has(key)) return;
    planned.add(key);
    verdicts.open.push(alert);
  };
  const agentAlert = (organizationId: string, sighting: Sighting) => plan(`${organizationId} agent ${sighting.agentId}`, { kind: 'agent_offline', organizationId, sighting });
  for (const alert of open) {
    if (alert.kind === 'agent_offline') {
      const s = alert.agentId ? byId.get(alert.agentId) : undefined;
      // Back, removed, forgotten, or (a platform agent) no longer checking anything of the organization there.
      const over = !s || isOnline(s, now, rules) || (s.organizationId === null && !placeOf.has(placeKey(alert.organizationId, s.location)));
      if (over) verdicts.resolve.push(alert);
    } else if (alert.kind === 'location_offline') {
      const place = placeOf.get(placeKey(alert.organizationId, alert.location ?? ''));
      if (place && dark.has(placeKey(place.organizationId, place.location))) continue;
      verdicts.resolve.push(alert);
      // Partly back: the agents still silent there are told of one by one from now on.
      if (place && anyOnline(place)) {
        for (const s of here(place)) if (s.offlineAt !== null && !isOnline(s, now, rules) && answersTo(s, place)) agentAlert(place.organizationId, s);
      }
    }
  }

  for (const s of declared) {
    const organizations = s.organizationId !== null ? [s.organizationId] : places.filter((p) => p.location === s.location && answersTo(s, p)).map((p) => p.organizationId);
    for (const organizationId of organizations) {
      const key = placeKey(organizationId, s.location);
      if (dark.has(key)) plan(`${key} location`, { kind: 'location_offline', organizationId, location: s.location, lastSeenAt: lastSeen(placeOf.get(key)!) });
      else agentAlert(organizationId, s);
    }
  }
  return verdicts;
}
