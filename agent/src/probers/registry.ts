// Finds the prober for a check type and runs it under the check's hard timeout. Whatever a
// prober does (throws, ignores its signal), run() resolves with a result by the deadline.
import { AGENT_CHECK_TYPES, checkFamily, type CheckFamily, type CheckType } from '../../../shared/src/check-types.js';
import { DeadlineSignal } from './probe-signal.js';
import type { Prober, ProbeResult, ProbeTarget } from './prober.js';

/** Time a prober gets after its signal aborts to report its own, more precise, failure. */
const ABORT_GRACE_MS = 100;

export interface ProberRegistry {
  /** Check types this agent can run, sent to the control plane on hello. */
  capabilities(): CheckType[];
  run(target: ProbeTarget): Promise<ProbeResult>;
}

export function createProberRegistry(probers: readonly Prober[]): ProberRegistry {
  const byFamily = new Map<CheckFamily, Prober>(probers.map((p) => [p.family, p]));

  return {
    capabilities: () => AGENT_CHECK_TYPES.filter((t) => byFamily.has(checkFamily(t))),
    run(target) {
      const prober = byFamily.get(checkFamily(target.checkType));
      if (!prober) return Promise.resolve(failed(0, `check type ${target.checkType} is not supported by this agent version`));
      return runWithDeadline(prober, target);
    },
  };
}

// One timer per check: on success it is cleared and the signal never aborts (aborting costs an
// error with a stack, and every prober already releases what it holds when it resolves).
function runWithDeadline(prober: Prober, target: ProbeTarget): Promise<ProbeResult> {
  const started = performance.now();
  const signal = new DeadlineSignal();
  return new Promise<ProbeResult>((resolve) => {
    let settled = false;
    const settle = (result: ProbeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    let timer = setTimeout(() => {
      signal.abort();
      timer = setTimeout(() => settle(failed(target.timeoutMs, `timed out after ${target.timeoutMs} ms`)), ABORT_GRACE_MS);
    }, target.timeoutMs);
    const fail = (err: unknown) => settle(failed(performance.now() - started, `prober error: ${err instanceof Error ? err.message : String(err)}`));
    try {
      prober.probe(target, signal).then(settle, fail);
    } catch (err) {
      // A prober that throws instead of rejecting still yields a result, not a lost run.
      fail(err);
    }
  });
}

function failed(responseTimeMs: number, message: string): ProbeResult {
  return { ok: false, responseTimeMs: Math.round(responseTimeMs), message, details: {} };
}
