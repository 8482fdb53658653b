// Runs each assigned service: at once when it is new or changed, then on its slot every
// interval. A fresh scheduler's snapshot is spread out instead of fired at once: each service
// first runs on its slot, within at most `snapshotSpreadMs` (an hour-long interval must not
// leave a restarted agent silent for an hour). A service never has two runs at once; a
// run-now during a run is queued once, and a run that retries (retries.ts) is one run until
// its last attempt. A run that finds the concurrency queue full is skipped and counted, not
// queued without bound.
import type { Assignment } from '../../../shared/src/assignment.js';
import type { ServiceStatus } from '../../../shared/src/status.js';
import type { ProbeResult } from '../probers/prober.js';
import { unsupportedCheck, type PreparedCheck } from '../probers/registry.js';
import { probeTarget, runStatus } from './assignments.js';
import type { Scheduler, SchedulerOptions } from './scheduler-api.js';
import { RetryingRun, retryPolicy } from './retries.js';
import { Semaphore } from './semaphore.js';
import { nextSlot, offsetMs } from './slots.js';

export type { Assignment };
export type { CompletedRun, Scheduler, SchedulerOptions } from './scheduler-api.js';

interface Entry {
  assignment: Assignment;
  /** Where the service's runs fall within its interval, computed once per assignment. */
  offsetMs: number;
  /** The check, prepared once per assignment. */
  check: PreparedCheck;
  /** The assignment's retries; undefined when it has none. */
  retries: RetryingRun | undefined;
  timer?: NodeJS.Timeout;
  /** The callbacks of its runs, made once per entry rather than once per run (P1). */
  fire: () => void;
  begin: () => void;
  report: (result: ProbeResult) => void;
  /** The current run: its settings, and when it was planned and began (epoch ms; planned is undefined for ad-hoc runs). */
  run: { assignment: Assignment; adHoc: boolean; plannedAt: number | undefined; checkedAt: number; retries: RetryingRun | undefined };
  /** When the next scheduled run should start. */
  plannedAt?: number;
  running: boolean;
  /** Removed while running: kept only so a re-added service waits for this run to end. */
  removed: boolean;
  /** No longer in the scheduler's entries: a run still queued for it must not probe. */
  dropped: boolean;
  /** What to do when the current run ends: a run-now arrived, or the check changed. */
  runAgain: false | 'ad-hoc' | 'changed';
  /** The status of the last result since the assignment (re)started; undefined before the first. */
  lastStatus?: ServiceStatus;
}

export function createScheduler({ registry, onResult, logger, maxConcurrentChecks = 256, maxQueuedChecks = maxConcurrentChecks * 4, snapshotSpreadMs = 10_000, stopWaitMs = 5_000 }: SchedulerOptions): Scheduler {
  const entries = new Map<string, Entry>();
  const limiter = new Semaphore(maxConcurrentChecks, maxQueuedChecks);
  /** Probes started and not yet ended, and who waits for that to be none (stop). */
  let probing = 0;
  const idleWaiters: (() => void)[] = [];
  let removedWhileRunning = 0;
  let skipped = 0;
  let stopped = false;

  const intervalMs = (a: Assignment) => a.intervalSeconds * 1000;
  const isCurrent = (entry: Entry) => !stopped && !entry.removed && !entry.dropped;

  const slotOffset = (a: Assignment) => offsetMs(a.serviceId, intervalMs(a));
  const prepareCheck = (a: Assignment) => {
    const target = probeTarget(a);
    return target ? registry.prepare(target) : unsupportedCheck(a.checkType);
  };
  const newEntry = (assignment: Assignment): Entry => {
    const entry: Entry = {
      assignment,
      offsetMs: slotOffset(assignment),
      check: prepareCheck(assignment),
      retries: undefined,
      fire: () => fire(entry),
      begin: () => begin(entry),
      report: (result) => report(entry, result),
      run: { assignment, adHoc: false, plannedAt: undefined, checkedAt: 0, retries: undefined },
      running: false,
      removed: false,
      dropped: false,
      runAgain: false,
    };
    entry.retries = retriesOf(entry);
    return entry;
  };
  const retriesOf = (entry: Entry) => {
    const policy = retryPolicy(entry.assignment.options);
    return policy && new RetryingRun(policy, () => retry(entry));
  };

  function fire(entry: Entry): void {
    // Spent: nothing to clear when the run schedules the next one.
    entry.timer = undefined;
    start(entry, false);
  }

  function scheduleNext(entry: Entry, now: number): void {
    // At least half an interval after the last start (now), then on the service's own slot.
    scheduleAt(entry, nextSlot(now + intervalMs(entry.assignment) / 2, intervalMs(entry.assignment), entry.offsetMs), now);
  }

  function scheduleAt(entry: Entry, at: number, now: number): void {
    clearTimeout(entry.timer);
    if (!isCurrent(entry)) return;
    entry.plannedAt = at;
    entry.timer = setTimeout(entry.fire, Math.max(0, at - now));
  }

  /** A new or changed service: planned for now, so its lateness is only the wait for a place. */
  function runAtOnce(entry: Entry): void {
    entry.plannedAt = Date.now();
    start(entry, false);
  }

  function start(entry: Entry, adHoc: boolean): void {
    if (!isCurrent(entry)) return;
    if (entry.running) {
      // A slot that falls inside a long run is skipped; a run-now waits for the run to end.
      if (adHoc) entry.runAgain ||= 'ad-hoc';
      else scheduleNext(entry, Date.now());
      return;
    }
    entry.running = true;
    const now = Date.now();
    // A service has one run at a time, so the run's state lives on its entry.
    const { run } = entry;
    run.assignment = entry.assignment;
    run.adHoc = adHoc;
    run.plannedAt = adHoc ? undefined : (entry.plannedAt ?? now);
    run.retries = entry.retries;
    if (!adHoc) scheduleNext(entry, now);
    if (!limiter.acquire(entry.begin)) {
      skipped++;
      entry.running = false;
    }
  }

  /** Runs the probe in the place acquired for it; report() hands the result on and frees the place. */
  function begin(entry: Entry): void {
    // Waiting for a free slot may outlast the assignment: never probe with old settings.
    // Freed on the next turn, so a queue of such runs does not unwind on one stack.
    if (!isCurrent(entry) || entry.assignment !== entry.run.assignment) {
      queueMicrotask(() => {
        limiter.release();
        entry.run.retries?.cancel();
        finishRun(entry);
      });
      return;
    }
    const { run } = entry;
    const now = Date.now();
    if (run.retries === undefined || run.retries.attemptStarts(now)) run.checkedAt = now;
    probing++;
    entry.check(entry.report);
  }

  function report(entry: Entry, result: ProbeResult): void {
    const { assignment, adHoc, plannedAt, checkedAt, retries } = entry.run;
    if (retries !== undefined) {
      if (retries.failedWithRetriesLeft(result)) {
        // Cut short (stopping, removed, changed), the run's failure has not counted yet: no result.
        if (!isCurrent(entry) || entry.assignment !== assignment) {
          retries.cancel();
          return ended(entry);
        }
        // The wait holds no place: a target down for long must not starve the other services.
        retries.waitToRetry();
        return freePlace();
      }
      result = retries.final(result);
    }
    const status = runStatus(assignment, result);
    // A run of settings replaced meanwhile says nothing about the new ones' status.
    const current = entry.assignment === assignment;
    const statusChanged = current && status !== entry.lastStatus;
    if (current) entry.lastStatus = status;
    try {
      onResult({ assignment, result, checkedAt, adHoc, latenessMs: plannedAt === undefined ? null : Math.max(0, checkedAt - plannedAt), status, statusChanged });
    } catch (err) {
      logger.error({ err, serviceId: assignment.serviceId }, 'publishing a result failed');
    }
    ended(entry);
  }

  /** A started probe is over: its place is free, and stop() may be waiting for the last one. */
  function ended(entry: Entry): void {
    freePlace();
    finishRun(entry);
  }

  function freePlace(): void {
    limiter.release();
    if (--probing === 0) for (const resolve of idleWaiters.splice(0)) resolve();
  }

  /** A retry's wait is over: its attempt queues for a place as a run does. */
  function retry(entry: Entry): void {
    if (limiter.acquire(entry.begin)) return;
    skipped++;
    entry.run.retries!.cancel();
    finishRun(entry);
  }

  /** A run waiting to retry, cut short (stopping, removed, changed), ends now and without a result. */
  function cutShort(entry: Entry): void {
    if (entry.running && entry.run.retries?.cancel()) finishRun(entry);
  }

  function finishRun(entry: Entry): void {
    entry.running = false;
    const again = entry.runAgain;
    entry.runAgain = false;
    if (entry.removed) {
      removedWhileRunning--;
      entry.dropped = true;
      if (entries.get(entry.assignment.serviceId) === entry) entries.delete(entry.assignment.serviceId);
      return;
    }
    if (again === 'changed') runAtOnce(entry);
    else if (again) start(entry, true);
  }

  function upsert(assignment: Assignment): void {
    const held = entries.get(assignment.serviceId);
    if (!held) {
      const entry = newEntry(assignment);
      entries.set(assignment.serviceId, entry);
      runAtOnce(entry);
      return;
    }
    if (!held.removed && held.assignment.version >= assignment.version) return;
    if (held.removed) {
      held.removed = false;
      removedWhileRunning--;
    }
    // A changed check runs at once with its new settings, after the old run if one is going.
    clearTimeout(held.timer);
    held.assignment = assignment;
    held.offsetMs = slotOffset(assignment);
    held.check = prepareCheck(assignment);
    held.retries = retriesOf(held);
    held.lastStatus = undefined;
    if (!held.running) return runAtOnce(held);
    held.runAgain = 'changed';
    cutShort(held);
  }

  function remove(serviceId: string, version: number): void {
    const held = entries.get(serviceId);
    if (!held || held.removed || held.assignment.version > version) return;
    clearTimeout(held.timer);
    if (!held.running) {
      held.dropped = true;
      entries.delete(serviceId);
      return;
    }
    held.removed = true;
    held.runAgain = false;
    removedWhileRunning++;
    cutShort(held);
  }

  /** A fresh scheduler's snapshot: every service waits for its first slot, none runs at once. */
  function spread(assignments: Assignment[]): void {
    const now = Date.now();
    for (const a of assignments) {
      if (stopped || entries.has(a.serviceId)) continue;
      const entry = newEntry(a);
      entries.set(a.serviceId, entry);
      const window = Math.min(intervalMs(a), snapshotSpreadMs);
      scheduleAt(entry, nextSlot(now, window, entry.offsetMs % window), now);
    }
  }

  return {
    replaceAll(assignments) {
      if (entries.size === 0) return spread(assignments);
      const keep = new Set(assignments.map((a) => a.serviceId));
      for (const [serviceId, entry] of entries) if (!keep.has(serviceId)) remove(serviceId, entry.assignment.version);
      for (const a of assignments) upsert(a);
    },
    upsert,
    remove,
    runNow(serviceId) {
      const entry = entries.get(serviceId);
      if (entry) start(entry, true);
    },
    size: () => entries.size - removedWhileRunning,
    skippedRuns: () => skipped,
    async stop() {
      stopped = true;
      for (const entry of entries.values()) {
        clearTimeout(entry.timer);
        cutShort(entry);
      }
      let timer: NodeJS.Timeout | undefined;
      const idle = probing === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve));
      await Promise.race([idle, new Promise((resolve) => (timer = setTimeout(resolve, stopWaitMs)))]);
      clearTimeout(timer);
    },
  };
}
