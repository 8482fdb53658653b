// How one check result becomes a service status (SPEC.md 3.1).

export type ServiceStatus = 'GREEN' | 'YELLOW' | 'RED';

/** Passed checks slower than this are YELLOW (degraded). */
export const YELLOW_THRESHOLD_MS = 1000;

/** `degraded`: the prober passed the check but judged the target degraded (a certificate near expiry). */
export function statusOf(ok: boolean, responseTimeMs: number, degraded = false): ServiceStatus {
  if (!ok) return 'RED';
  return degraded || responseTimeMs > YELLOW_THRESHOLD_MS ? 'YELLOW' : 'GREEN';
}
