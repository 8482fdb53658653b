// How one check result becomes a service status (SPEC.md 3.1).

export type ServiceStatus = 'GREEN' | 'YELLOW' | 'RED';

/** Passed checks slower than this are YELLOW (degraded), unless the service sets degraded_after_ms. */
export const YELLOW_THRESHOLD_MS = 1000;

/** `degraded`: the prober passed the check but judged the target degraded (a certificate near expiry). */
export function statusOf(ok: boolean, responseTimeMs: number, degraded = false, degradedAfterMs = YELLOW_THRESHOLD_MS): ServiceStatus {
  if (!ok) return 'RED';
  return degraded || responseTimeMs > degradedAfterMs ? 'YELLOW' : 'GREEN';
}

/** A result's status as the control plane sees it: an agent that judged the speed itself says YELLOW through `degraded`. */
export function reportedStatus(ok: boolean, responseTimeMs: number, degraded = false, speedJudged = false): ServiceStatus {
  if (speedJudged) return ok ? (degraded ? 'YELLOW' : 'GREEN') : 'RED';
  return statusOf(ok, responseTimeMs, degraded);
}
