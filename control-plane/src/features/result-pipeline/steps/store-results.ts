// Step 1 (checks): stores the results and applies each to its service's status. Results of
// services deleted before they could be locked are removed again; a paused service's
// results are kept for its history but move nothing.
import type { CheckResultsRepository, LockedService } from '../../checks/check-results.repository.js';
import type { IncomingResult, StoredResult } from '../../checks/check-result.js';
import { encodeBacklog } from '../../checks/rollup-deltas.js';
import { applyResult, type FlapSettings, type StatusStep } from '../../checks/service-status.js';
import type { PipelineStep } from '../result-batch.js';

export function storeResults(results: CheckResultsRepository, flap: FlapSettings): PipelineStep {
  return async (tx, batch) => {
    const inserted = await results.insert(tx, batch.incoming);
    if (inserted.length === 0) return;
    // Only now are the services locked, so that batches about the same services insert in parallel.
    const services = await results.lockServices(tx, [...new Set(inserted.map((r) => r.serviceId))].sort());
    await results.discard(tx, inserted.filter((r) => !services.has(r.serviceId)));
    batch.kept = inserted.filter((r) => services.has(r.serviceId));
    batch.stored = inTimeOrder([...batch.kept]).map((r) => withStatus(r, services.get(r.serviceId)!, flap));
    if (batch.stored.length === 0) return;
    const states = new Map([...services].map(([id, s]) => [id, s.state]));
    await results.saveStates(tx, states, encodeBacklog(batch.stored));
  };
}

function inTimeOrder(results: IncomingResult[]): IncomingResult[] {
  return results.sort((a, b) => a.checkedAt.getTime() - b.checkedAt.getTime() || (a.id < b.id ? -1 : 1));
}

/** A paused service's result: stored as late results are, moving nothing. */
function frozen({ state }: LockedService): StatusStep {
  return {
    current: false, previousStatus: null, serviceStatus: state.status ?? 'GREEN', failingLocations: 0, redStreak: state.redStreak, failureStreak: state.failureStreak,
    greenStreak: state.greenStreak, flapping: state.flapping, startedFlapping: false,
  };
}

// Spelled out: the object spread here was the costliest line of ingest in a CPU profile.
function withStatus(r: IncomingResult, locked: LockedService, flap: FlapSettings): StoredResult {
  const { state } = locked;
  const step = locked.paused ? frozen(locked) : applyResult(state, r, flap);
  return {
    id: r.id,
    serviceId: r.serviceId,
    status: r.status,
    responseTimeMs: r.responseTimeMs,
    message: r.message,
    location: r.location,
    agentId: r.agentId,
    checkedAt: r.checkedAt,
    adHoc: r.adHoc,
    details: r.details,
    organizationId: state.organizationId,
    serviceName: state.name,
    serviceEndpoint: state.endpoint,
    serviceAlerting: locked.alerting,
    serviceHasDependents: locked.hasDependents,
    service: locked.traits,
    serviceWasStale: locked.stale,
    current: step.current,
    previousStatus: step.previousStatus,
    serviceStatus: step.serviceStatus,
    failingLocations: step.failingLocations,
    redStreak: step.redStreak,
    failureStreak: step.failureStreak,
    greenStreak: step.greenStreak,
    flapping: step.flapping,
    startedFlapping: step.startedFlapping,
  };
}
