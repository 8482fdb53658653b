// Batches results (by count and by time), seals them in the spool, and sends sealed
// batches in order while the stream is up, a bounded number awaiting acknowledgement.
// After a reconnect every unacknowledged batch is sent again.
import type { DiskSpool, SealedBatch, SpooledResult } from '../spool/disk-spool.js';

export interface PublisherOptions {
  spool: DiskSpool;
  /** Writes a batch to the stream; false when it cannot be sent now. */
  send(batch: SealedBatch): boolean;
  maxResults?: number;
  maxDelayMs?: number;
  maxInFlight?: number;
  /** A batch not acknowledged within this long is sent again (the control plane may have failed it). */
  ackTimeoutMs?: number;
}

export interface Publisher {
  /** Appends to the spool at once; sends by count or after maxDelayMs. */
  publish(result: SpooledResult): void;
  /** Seals what is pending and, once it is durable, sends what the in-flight window allows. */
  flush(): Promise<void>;
  connected(): void;
  disconnected(): void;
  acknowledged(batchId: string): void;
  /** Resolves when nothing is left unacknowledged, or after `timeoutMs`. */
  drain(timeoutMs: number): Promise<boolean>;
  stop(): void;
}

export function createPublisher({ spool, send, maxResults = 100, maxDelayMs = 200, maxInFlight = 8, ackTimeoutMs = 30_000 }: PublisherOptions): Publisher {
  const inFlight = new Map<string, NodeJS.Timeout>();
  let online = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
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
    publish(result) {
      spool.append(result);
      // After stop() a late result is only kept on disk; the next start seals and sends it.
      if (stopped) return;
      if (spool.pendingCount() >= maxResults) void flush();
      else timer ??= setTimeout(() => void flush(), maxDelayMs);
    },
    flush,
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
