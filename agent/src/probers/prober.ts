// The one interface every protocol prober implements (STYLE.md rule 10). A failed probe is
// data, never an exception: probe() resolves with ok=false and a short human message.
import type { CheckFamily, CheckType } from '../../../shared/src/check-types.js';

export interface ProbeTarget {
  checkType: CheckType;
  endpoint: string;
  /** Hard limit for the whole check, DNS included. */
  timeoutMs: number;
  /** Per-type options, already validated by the control plane. */
  options: Record<string, unknown>;
}

/** Phase timings (milliseconds, only the phases measured) and facts about the target. */
export type ProbeDetails = Record<string, string | number | boolean | null | string[]>;

export interface ProbeResult {
  ok: boolean;
  responseTimeMs: number;
  /** Short and human: "HTTP 200 in 85 ms", "connection refused". */
  message: string;
  details: ProbeDetails;
}

export interface Prober {
  readonly family: CheckFamily;
  /** Resolves (never rejects) before or when `signal` aborts at the check's timeout. */
  probe(target: ProbeTarget, signal: AbortSignal): Promise<ProbeResult>;
}
