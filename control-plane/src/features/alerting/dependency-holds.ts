// Alerts held by service dependencies: while a service's direct dependency is RED, the
// service's failures open no alert; when the dependency leaves RED its dependents that still
// fail are judged afresh and their alerts say what held them. Only direct dependencies count:
// a service two steps from a RED one is held only if the one between is RED too, as it
// usually is. Pure: the evaluator reads the facts (dependency-holds.repository.ts).
import type { StoredResult } from '../checks/check-result.js';
import type { HeldDependent, HoldingParent } from './dependency-holds.repository.js';

/** A held dependent's latest result as the rules judge it: current, with its service's standing state. */
export function heldResult(h: HeldDependent): StoredResult {
  return {
    ...h.result,
    serviceId: h.serviceId,
    adHoc: false,
    details: {},
    organizationId: h.organizationId,
    serviceName: h.name,
    serviceEndpoint: h.endpoint,
    serviceAlerting: false,
    serviceHasDependents: false,
    current: true,
    previousStatus: null,
    serviceStatus: h.serviceStatus,
    failingLocations: h.failingLocations,
    redStreak: h.redStreak,
    failureStreak: h.failureStreak,
    greenStreak: h.greenStreak,
    flapping: h.flapping,
    startedFlapping: false,
    service: h.service,
    serviceWasStale: false,
  };
}

/** What an alert opened late says of the dependencies that held it. */
export function heldWording(parents: readonly HoldingParent[]): string {
  return `was suppressed while ${parents.map((p) => p.name).join(', ')} ${parents.length > 1 ? 'were' : 'was'} RED`;
}
