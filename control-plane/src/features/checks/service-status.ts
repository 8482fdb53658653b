// The service-status rule (API.md): a service's status follows the latest result of each of
// its locations. It is RED when at least min_failing_locations of them are RED, else YELLOW
// when as many are RED or YELLOW, else GREEN; streaks count consecutive RED, non-GREEN and
// GREEN results. A service whose status changed more than `changes` times within the flap
// window is flapping until a window holds at most one change. Pure: the ingest transaction
// loads the states, applies the batch, saves what moved.
import type { ServiceStatus } from '../../../../shared/src/status.js';

export interface LocationStatus {
  status: ServiceStatus;
  checkedAt: Date;
  responseTimeMs: number | null;
}

export interface ServiceState {
  organizationId: string;
  name: string;
  endpoint: string;
  status: ServiceStatus | null;
  /** The locations the service is checked from. */
  locations: readonly string[];
  minFailingLocations: number;
  /** Latest result of each location. */
  byLocation: Map<string, LocationStatus>;
  lastCheckedAt: Date | null;
  lastResponseTimeMs: number | null;
  redStreak: number;
  failureStreak: number;
  greenStreak: number;
  flapping: boolean;
  /** When the status last changed (epoch ms, oldest first), within the flap window. */
  statusChanges: number[];
  /** Locations whose latest result this batch replaced, so their rows must be written. */
  movedLocations: Set<string>;
}

export interface ResultFacts {
  status: ServiceStatus;
  location: string;
  checkedAt: Date;
  responseTimeMs: number;
}

export interface StatusStep {
  /** False for a result older than its location's latest: stored, but it moves nothing. */
  current: boolean;
  /** The service's status before this result; null when the result did not move it. */
  previousStatus: ServiceStatus | null;
  /** The service's status after this result. */
  serviceStatus: ServiceStatus;
  /** How many of the service's locations were RED or YELLOW after this result. */
  failingLocations: number;
  redStreak: number;
  failureStreak: number;
  greenStreak: number;
  /** Flapping after this result. */
  flapping: boolean;
  /** This result made the service start flapping. */
  startedFlapping: boolean;
}

export interface FlapSettings {
  /** More status changes than this within the window make a service flap. */
  changes: number;
  windowMs: number;
}

/** Applies one result to its service's state; results of a service must come in checked_at order. */
export function applyResult(state: ServiceState, result: ResultFacts, flap: FlapSettings): StatusStep {
  const held = state.byLocation.get(result.location);
  const current = !held || held.checkedAt <= result.checkedAt;
  if (current) {
    state.byLocation.set(result.location, { status: result.status, checkedAt: result.checkedAt, responseTimeMs: result.responseTimeMs });
    state.movedLocations.add(result.location);
  }
  const { status: serviceStatus, failing } = quorum(state, result.location);
  let previousStatus: ServiceStatus | null = null;
  let startedFlapping = false;
  if (current) {
    previousStatus = state.status;
    state.status = serviceStatus;
    if (!state.lastCheckedAt || state.lastCheckedAt < result.checkedAt) state.lastCheckedAt = result.checkedAt;
    state.lastResponseTimeMs = result.responseTimeMs;
    state.redStreak = serviceStatus === 'RED' ? state.redStreak + 1 : 0;
    state.failureStreak = serviceStatus === 'GREEN' ? 0 : state.failureStreak + 1;
    state.greenStreak = serviceStatus === 'GREEN' ? state.greenStreak + 1 : 0;
    startedFlapping = judgeFlapping(state, previousStatus !== null && previousStatus !== serviceStatus, result.checkedAt.getTime(), flap);
  }
  return {
    current, previousStatus, serviceStatus, failingLocations: failing, redStreak: state.redStreak, failureStreak: state.failureStreak, greenStreak: state.greenStreak,
    flapping: state.flapping, startedFlapping,
  };
}

/** Records a change and decides flapping afresh; answers whether the service just started to flap. */
function judgeFlapping(state: ServiceState, changed: boolean, at: number, { changes, windowMs }: FlapSettings): boolean {
  const since = at - windowMs;
  const recent = state.statusChanges;
  if (changed) recent.push(at);
  // Only the count within the window matters, and never more than one over the limit.
  let drop = 0;
  while (drop < recent.length && (recent[drop]! <= since || recent.length - drop > changes + 1)) drop++;
  if (drop > 0) recent.splice(0, drop);
  if (!state.flapping && recent.length > changes) {
    state.flapping = true;
    return true;
  }
  if (state.flapping && recent.length <= 1) state.flapping = false;
  return false;
}

/** Whether any result of this batch moved the service (its row must be written). */
export function hasMoved(state: ServiceState): boolean {
  return state.movedLocations.size > 0;
}

function quorum(state: ServiceState, resultLocation: string): { status: ServiceStatus; failing: number } {
  // A result from a location the service is no longer checked from still counts for itself.
  let counted = 0;
  let red = 0;
  let failing = 0;
  for (const [location, latest] of state.byLocation) {
    if (location !== resultLocation && !state.locations.includes(location)) continue;
    counted++;
    if (latest.status === 'RED') red++;
    if (latest.status !== 'GREEN') failing++;
  }
  const needed = Math.min(state.minFailingLocations, Math.max(1, counted));
  return { status: red >= needed ? 'RED' : failing >= needed ? 'YELLOW' : 'GREEN', failing };
}
