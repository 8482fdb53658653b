// An assignment as the agent holds it, and what a run of it becomes: the target its prober
// probes, and the status its result gives (by the service's own degraded_after_ms). Shared by
// scheduled runs and test runs, so both judge a result alike.
import type { Assignment } from '../../../shared/src/assignment.js';
import { normaliseCheckType } from '../../../shared/src/check-types.js';
import type { Assignment as WireAssignment } from '../../../shared/src/gen/agent.js';
import { statusOf, type ServiceStatus } from '../../../shared/src/status.js';
import type { ProbeResult, ProbeTarget } from '../probers/prober.js';

export function assignmentFromWire(a: WireAssignment): Assignment {
  return {
    serviceId: a.serviceId,
    version: a.version,
    checkType: a.checkType,
    endpoint: a.endpoint,
    intervalSeconds: Math.max(1, a.intervalSeconds),
    timeoutSeconds: Math.max(1, a.timeoutSeconds),
    options: a.options ?? {},
  };
}

/** What the prober probes; null for a check type this agent does not know. */
export function probeTarget(a: Assignment): ProbeTarget | null {
  const checkType = normaliseCheckType(a.checkType);
  return checkType ? { checkType, endpoint: a.endpoint, timeoutMs: a.timeoutSeconds * 1000, options: a.options } : null;
}

/** The status a result gives its service, as the control plane takes it from an agent that judged the speed. */
export function runStatus(a: Assignment, result: ProbeResult): ServiceStatus {
  const line: unknown = a.options.degraded_after_ms;
  return statusOf(result.ok, result.responseTimeMs, result.degraded, typeof line === 'number' ? line : undefined);
}
