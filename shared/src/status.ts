// How one check result becomes a service status (SPEC.md 3.1).

export type ServiceStatus = 'GREEN' | 'YELLOW' | 'RED';

/** Passed checks slower than this are YELLOW (degraded). */
export const YELLOW_THRESHOLD_MS = 1000;

export function statusOf(ok: boolean, responseTimeMs: number): ServiceStatus {
  if (!ok) return 'RED';
  return responseTimeMs > YELLOW_THRESHOLD_MS ? 'YELLOW' : 'GREEN';
}
