// What the scheduler offers its owner (the agent) and what it tells it after each run.
import type { Logger } from 'pino';
import type { Assignment } from '../../../shared/src/assignment.js';
import type { ServiceStatus } from '../../../shared/src/status.js';
import type { ProbeResult } from '../probers/prober.js';
import type { ProberRegistry } from '../probers/registry.js';

export interface CompletedRun {
  /** The settings the probe ran with. */
  assignment: Assignment;
  result: ProbeResult;
  /** When the probe started (after any wait for a free concurrency slot), epoch ms; a run's first attempt when it retried. */
  checkedAt: number;
  adHoc: boolean;
  /** How late a scheduled run started after its slot; null for ad-hoc runs. */
  latenessMs: number | null;
  /** The status this result gives the service (as the control plane computes it). */
  status: ServiceStatus;
  /** The first result since the service was assigned or changed, or a status other than the last one's. */
  statusChanged: boolean;
}

export interface SchedulerOptions {
  registry: ProberRegistry;
  onResult(run: CompletedRun): void;
  logger: Logger;
  /** Probes running at once over all services, so a big snapshot does not open every socket together. */
  maxConcurrentChecks?: number;
  /** Runs waiting for a free place at most; a run beyond them is skipped (and counted). */
  maxQueuedChecks?: number;
  /** The window a fresh scheduler's snapshot is spread over, when shorter than the interval. */
  snapshotSpreadMs?: number;
  /** How long stop() waits for running probes. */
  stopWaitMs?: number;
}

export interface Scheduler {
  /** Makes the held assignments exactly these (a snapshot). */
  replaceAll(assignments: Assignment[]): void;
  /** Ignored unless the service is new or `version` is newer than the one held. */
  upsert(assignment: Assignment): void;
  /** Ignored when the held version is newer than `version`. */
  remove(serviceId: string, version: number): void;
  runNow(serviceId: string): void;
  size(): number;
  /** Scheduled runs skipped because the queue for a free concurrency place was full. */
  skippedRuns(): number;
  /** Cancels every timer and waits (bounded) for the probes still running. */
  stop(): Promise<void>;
}
