// Finds the prober for a check type and prepares a target's check once; each run of it goes
// under the check's hard timeout. Whatever a prober does (throws, ignores its signal), a run
// reports one result by the deadline.
import { AGENT_CHECK_TYPES, checkFamily, type CheckFamily, type CheckType } from '../../../shared/src/check-types.js';
import { DeadlineQueue, type TimedRun } from './deadline-queue.js';
import { DeadlineSignal } from './probe-signal.js';
import type { Probe, Prober, ProbeResult, ProbeTarget } from './prober.js';
import { withVerdict } from './verdict.js';

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
  const deadlines = new Map<number, DeadlineQueue>();

  const prepare = (target: ProbeTarget): PreparedCheck => {
    const prober = byFamily.get(checkFamily(target.checkType));
    if (!prober) return unsupportedCheck(target.checkType);
    let probe: Probe;
    try {
      probe = withVerdict(prober.prepare(target), target.options);
    } catch (err) {
      return failing(proberError(err));
    }
    const { timeoutMs } = target;
    let queue = deadlines.get(timeoutMs);
    if (!queue) deadlines.set(timeoutMs, (queue = new DeadlineQueue(timeoutMs)));
    let runner: Runner | undefined;
    return (done) => {
      // A probe still going (it outlived its deadline, or runs beside this one) keeps its runner.
      if (!runner || runner.probing) runner = new Runner(probe, timeoutMs, queue);
      runner.start(done);
    };
  };

  return {
    capabilities: () => AGENT_CHECK_TYPES.filter((t) => byFamily.has(checkFamily(t))),
    prepare,
    run: (target) =>
      new Promise((resolve) => {
        // The deadlines do not keep a process alive; the `check` command lives until its one result.
        const alive = setTimeout(() => undefined, target.timeoutMs + ABORT_GRACE_MS);
        prepare(target)((result) => {
          clearTimeout(alive);
          resolve(result);
        });
      }),
  };
}

/**
 * Runs a check's probe, one run at a time, each under the check's hard timeout. Its callbacks
 * are made once, not per run: they are on every check's path (P1). On success the signal never
 * aborts (aborting costs an error with a stack, and every prober already releases what it holds
 * when it resolves).
 */
class Runner implements TimedRun {
  /** The probe has not reported yet (it may have outlived its run's deadline). */
  probing = false;
  private run = 0;
  /** Who waits for the current run's result; undefined once it has it. */
  private done: ((result: ProbeResult) => void) | undefined;
  private signal: DeadlineSignal | undefined;
  private started = 0;
  private grace: NodeJS.Timeout | undefined;

  constructor(
    private readonly probe: Probe,
    private readonly timeoutMs: number,
    private readonly deadlines: DeadlineQueue,
  ) {}

  start(done: (result: ProbeResult) => void): void {
    this.run++;
    this.done = done;
    this.probing = true;
    this.started = performance.now();
    this.signal = new DeadlineSignal();
    this.deadlines.watch(this, this.run, this.started);
    try {
      this.probe(this.signal).then(this.resolved, this.rejected);
    } catch (err) {
      // A prober that throws instead of rejecting still yields a result, not a lost run.
      queueMicrotask(() => this.rejected(err));
    }
  }

  isRunning(run: number): boolean {
    return run === this.run && this.done !== undefined;
  }

  expire(run: number): void {
    this.signal!.abort();
    // The prober's own failure says more than ours, if it comes within the grace.
    this.grace = setTimeout(() => {
      if (this.isRunning(run)) this.settle(failed(this.timeoutMs, `timed out after ${this.timeoutMs} ms`));
    }, ABORT_GRACE_MS);
  }

  private readonly resolved = (result: ProbeResult) => {
    this.probing = false;
    this.settle(result);
  };

  private readonly rejected = (err: unknown) => {
    this.probing = false;
    this.settle(failed(performance.now() - this.started, proberError(err)));
  };

  private settle(result: ProbeResult): void {
    const done = this.done;
    if (done === undefined) return;
    this.done = undefined;
    this.signal = undefined;
    clearTimeout(this.grace);
    done(result);
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
