// Batches results (by count and by time), seals them in the spool, and sends sealed
// batches in order while the stream is up, a bounded number awaiting acknowledgement.
// After a reconnect every unacknowledged batch is sent again.
//
// Two delays: a result someone waits for (a failure, a change of status, a first result,
// "Check now") goes within `urgentDelayMs`; a steady one waits up to `maxDelayMs` to travel
// with others. A batch costs a durable write, a frame and an acknowledgement whatever it
// holds, so steady results in fewer, bigger batches cost the agent less per check (P1 in
// bench/agent-cpu.ts) while alerts and the dashboard's changes wait no longer.
import type { DiskSpool, SealedBatch, SpooledResult } from '../spool/disk-spool.js';

export interface PublisherOptions {
  spool: DiskSpool;
  /** Writes a batch to the stream; false when it cannot be sent now. */
  send(batch: SealedBatch): boolean;
  maxResults?: number;
  /** How long a steady result may wait for others; a function when that changes (the embedded agent's, embedded-agent.ts). */
  maxDelayMs?: number | (() => number);
  /** How long an urgent result may wait (never longer than maxDelayMs). */
  urgentDelayMs?: number;
  maxInFlight?: number;
  /** A batch not acknowledged within this long is sent again (the control plane may have failed it). */
  ackTimeoutMs?: number;
}

export interface Publisher {
  /** Appends to the spool at once; sends by count, or after urgentDelayMs or maxDelayMs. */
  publish(result: SpooledResult, urgent?: boolean): void;
  /** Seals what is pending and, once it is durable, sends what the in-flight window allows. */
  flush(): Promise<void>;
  /** maxDelayMs may have become shorter: what waits goes by then. */
  delayShortened(): void;
  connected(): void;
  disconnected(): void;
  acknowledged(batchId: string): void;
  /** Resolves when nothing is left unacknowledged, or after `timeoutMs`. */
  drain(timeoutMs: number): Promise<boolean>;
  stop(): void;
}

/** How long a steady result waits for others by default (ADR 0013). */
export const STEADY_DELAY_MS = 500;

export function createPublisher({ spool, send, maxResults = 500, maxDelayMs = STEADY_DELAY_MS, urgentDelayMs = 100, maxInFlight = 8, ackTimeoutMs = 30_000 }: PublisherOptions): Publisher {
  const inFlight = new Map<string, NodeJS.Timeout>();
  const steadyDelay = typeof maxDelayMs === 'function' ? maxDelayMs : () => maxDelayMs;
  const urgentDelay = () => Math.min(urgentDelayMs, steadyDelay());
  let online = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  /** When the armed timer flushes (epoch ms). */
  let flushAt = 0;
  let drained: (() => void) | undefined;

  const pump = () => {
    if (!online) return;
    for (const batch of spool.sealed()) {
      if (inFlight.size >= maxInFlight) break;
      if (inFlight.has(batch.batchId)) continue;
      if (!send(batch)) break;
      const timer = setTimeout(() => {
        inFlight.delete(batch.batchId);
        pump();
      }, ackTimeoutMs);
      timer.unref();
      inFlight.set(batch.batchId, timer);
    }
  };

  const forgetInFlight = () => {
    for (const timer of inFlight.values()) clearTimeout(timer);
    inFlight.clear();
  };

  const flushIn = (delayMs: number) => {
    clearTimeout(timer);
    flushAt = Date.now() + delayMs;
    timer = setTimeout(() => void flush(), delayMs);
  };

  const flush = async () => {
    clearTimeout(timer);
    timer = undefined;
    // A batch is sent only once its file is durable (the spool never rejects; it logs).
    await spool.seal();
    pump();
  };

  const settledCheck = () => {
    if (drained && spool.stats().results === 0) drained();
  };

  return {
    publish(result, urgent = false) {
      spool.append(result);
      // After stop() a late result is only kept on disk; the next start seals and sends it.
      if (stopped) return;
      if (spool.pendingCount() >= maxResults) void flush();
      else if (timer === undefined) flushIn(urgent ? urgentDelay() : steadyDelay());
      else if (urgent && Date.now() + urgentDelay() < flushAt) flushIn(urgentDelay());
    },
    flush,
    delayShortened() {
      if (timer !== undefined && Date.now() + steadyDelay() < flushAt) flushIn(steadyDelay());
    },
    connected() {
      online = true;
      forgetInFlight();
      pump();
    },
    disconnected() {
      online = false;
      forgetInFlight();
    },
    acknowledged(batchId) {
      clearTimeout(inFlight.get(batchId));
      inFlight.delete(batchId);
      spool.acknowledge(batchId);
      pump();
      settledCheck();
    },
    async drain(timeoutMs) {
      await flush();
      if (spool.stats().results === 0) return true;
      let timeout: NodeJS.Timeout | undefined;
      const done = await Promise.race([
        new Promise<boolean>((resolve) => (drained = () => resolve(true))),
        new Promise<boolean>((resolve) => (timeout = setTimeout(() => resolve(false), timeoutMs))),
      ]);
      clearTimeout(timeout);
      drained = undefined;
      return done;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      online = false;
      forgetInFlight();
    },
  };
}
