// Runs each assigned service: at once when it is new or changed, then on its slot every
// interval. A service never has two runs at once; a run-now during a run is queued once.
import type { Logger } from 'pino';
import type { Assignment } from '../../../shared/src/assignment.js';
import { normaliseCheckType } from '../../../shared/src/check-types.js';
import type { ProbeResult } from '../probers/prober.js';
import type { ProberRegistry } from '../probers/registry.js';
import { Semaphore } from './semaphore.js';
import { nextSlot, offsetMs } from './slots.js';

export type { Assignment };

export interface CompletedRun {
  assignment: Assignment;
  result: ProbeResult;
  startedAt: number;
  adHoc: boolean;
  /** How late a scheduled run started after its slot; null for ad-hoc runs. */
  latenessMs: number | null;
}

export interface SchedulerOptions {
  registry: ProberRegistry;
  onResult(run: CompletedRun): void;
  logger: Logger;
  maxConcurrentChecks?: number;
}

interface Entry {
  assignment: Assignment;
  timer?: NodeJS.Timeout;
  /** When the next scheduled run should start. */
  plannedAt?: number;
  running: boolean;
  /** What to do when the current run ends: a run-now arrived, or the check changed. */
  runAgain: false | 'ad-hoc' | 'changed';
}

export interface Scheduler {
  /** Makes the held assignments exactly these (a snapshot). */
  replaceAll(assignments: Assignment[]): void;
  upsert(assignment: Assignment): void;
  remove(serviceId: string, version: number): void;
  runNow(serviceId: string): void;
  size(): number;
  stop(): Promise<void>;
}

const STOP_WAIT_MS = 5_000;

export function createScheduler({ registry, onResult, logger, maxConcurrentChecks = 256 }: SchedulerOptions): Scheduler {
  const entries = new Map<string, Entry>();
  const limiter = new Semaphore(maxConcurrentChecks);
  const running = new Set<Promise<void>>();
  let stopped = false;

  const intervalMs = (a: Assignment) => a.intervalSeconds * 1000;

  function scheduleNext(entry: Entry, lastStart: number): void {
    clearTimeout(entry.timer);
    if (stopped) return;
    const a = entry.assignment;
    const at = nextSlot(lastStart + intervalMs(a) / 2, intervalMs(a), offsetMs(a.serviceId, intervalMs(a)));
    entry.plannedAt = at;
    entry.timer = setTimeout(() => start(entry, false), Math.max(0, at - Date.now()));
  }

  function start(entry: Entry, adHoc: boolean): void {
    if (stopped || entries.get(entry.assignment.serviceId) !== entry) return;
    if (entry.running) {
      // A slot that falls inside a long run is skipped; a run-now waits for the run to end.
      if (adHoc) entry.runAgain ||= 'ad-hoc';
      else scheduleNext(entry, Date.now());
      return;
    }
    entry.running = true;
    const assignment = entry.assignment;
    const startedAt = Date.now();
    const latenessMs = adHoc ? null : Math.max(0, startedAt - (entry.plannedAt ?? startedAt));
    if (!adHoc) scheduleNext(entry, startedAt);
    const run = limiter
      .run(() => probe(assignment))
      .then((result) => onResult({ assignment, result, startedAt, adHoc, latenessMs }))
      .catch((err) => logger.error({ err, serviceId: assignment.serviceId }, 'publishing a result failed'))
      .finally(() => {
        running.delete(run);
        entry.running = false;
        const again = entry.runAgain;
        entry.runAgain = false;
        if (again) start(entry, again === 'ad-hoc');
      });
    running.add(run);
  }

  function probe(a: Assignment): Promise<ProbeResult> {
    const checkType = normaliseCheckType(a.checkType);
    if (!checkType) {
      return Promise.resolve({ ok: false, responseTimeMs: 0, message: `check type ${a.checkType} is not supported by this agent version`, details: {} });
    }
    return registry.run({ checkType, endpoint: a.endpoint, timeoutMs: a.timeoutSeconds * 1000, options: a.options });
  }

  function upsert(assignment: Assignment): void {
    const held = entries.get(assignment.serviceId);
    if (!held) {
      const entry: Entry = { assignment, running: false, runAgain: false };
      entries.set(assignment.serviceId, entry);
      start(entry, false);
      return;
    }
    if (held.assignment.version >= assignment.version) return;
    // A changed check runs at once with its new settings, after the old run if one is going.
    clearTimeout(held.timer);
    held.assignment = assignment;
    if (held.running) held.runAgain = 'changed';
    else start(held, false);
  }

  function remove(serviceId: string, version: number): void {
    const held = entries.get(serviceId);
    if (!held || held.assignment.version > version) return;
    clearTimeout(held.timer);
    entries.delete(serviceId);
  }

  return {
    replaceAll(assignments) {
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
    size: () => entries.size,
    async stop() {
      stopped = true;
      for (const entry of entries.values()) clearTimeout(entry.timer);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...running]), new Promise((r) => (timer = setTimeout(r, STOP_WAIT_MS)))]);
      clearTimeout(timer);
    },
  };
}
