// Finds the prober for a check type and prepares a target's check once; each run of it goes
// under the check's hard timeout. Whatever a prober does (throws, ignores its signal), a run
// reports one result by the deadline.
import { AGENT_CHECK_TYPES, checkFamily, type CheckFamily, type CheckType } from '../../../shared/src/check-types.js';
import { DeadlineSignal } from './probe-signal.js';
import type { Probe, Prober, ProbeResult, ProbeTarget } from './prober.js';

/** Time a prober gets after its signal aborts to report its own, more precise, failure. */
const ABORT_GRACE_MS = 100;

/**
 * Runs a prepared check and calls `done` once with its result, never before it returns.
 * A callback rather than a promise: it is on every check's path (P1).
 */
export type PreparedCheck = (done: (result: ProbeResult) => void) => void;

export interface ProberRegistry {
  /** Check types this agent can run, sent to the control plane on hello. */
  capabilities(): CheckType[];
  /** A target's check, prepared once for all the runs of its assignment. */
  prepare(target: ProbeTarget): PreparedCheck;
  /** Prepares and runs a check once (the `check` command). */
  run(target: ProbeTarget): Promise<ProbeResult>;
}

export function createProberRegistry(probers: readonly Prober[]): ProberRegistry {
  const byFamily = new Map<CheckFamily, Prober>(probers.map((p) => [p.family, p]));

  const prepare = (target: ProbeTarget): PreparedCheck => {
    const prober = byFamily.get(checkFamily(target.checkType));
    if (!prober) return unsupportedCheck(target.checkType);
    let probe: Probe;
    try {
      probe = prober.prepare(target);
    } catch (err) {
      return failing(proberError(err));
    }
    return (done) => runWithDeadline(probe, target.timeoutMs, done);
  };

  return {
    capabilities: () => AGENT_CHECK_TYPES.filter((t) => byFamily.has(checkFamily(t))),
    prepare,
    run: (target) => new Promise((resolve) => prepare(target)(resolve)),
  };
}

// One timer per check: on success it is cleared and the signal never aborts (aborting costs an
// error with a stack, and every prober already releases what it holds when it resolves).
function runWithDeadline(probe: Probe, timeoutMs: number, done: (result: ProbeResult) => void): void {
  const started = performance.now();
  const signal = new DeadlineSignal();
  let settled = false;
  const settle = (result: ProbeResult) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    done(result);
  };
  let timer = setTimeout(() => {
    signal.abort();
    timer = setTimeout(() => settle(failed(timeoutMs, `timed out after ${timeoutMs} ms`)), ABORT_GRACE_MS);
  }, timeoutMs);
  const fail = (err: unknown) => settle(failed(performance.now() - started, proberError(err)));
  try {
    probe(signal).then(settle, fail);
  } catch (err) {
    // A prober that throws instead of rejecting still yields a result, not a lost run.
    queueMicrotask(() => fail(err));
  }
}

/** The check of a type this agent has no prober for, or does not know at all. */
export function unsupportedCheck(checkType: string): PreparedCheck {
  return failing(`check type ${checkType} is not supported by this agent version`);
}

/** A check that fails the same way every run (after its caller has returned, as every check reports). */
function failing(message: string): PreparedCheck {
  return (done) => queueMicrotask(() => done(failed(0, message)));
}

function proberError(err: unknown): string {
  return `prober error: ${err instanceof Error ? err.message : String(err)}`;
}

function failed(responseTimeMs: number, message: string): ProbeResult {
  return { ok: false, responseTimeMs: Math.round(responseTimeMs), message, details: {} };
}
