// Reports each batch an ingest service takes (results received and stored, time taken,
// failure) to an observer, so the metrics need no hook inside the ingest transaction.
import type { IngestService } from './ingest.js';

export interface IngestedBatch {
  received: number;
  /** New results stored; replays, unknown services and results past retention are not. */
  stored: number;
  seconds: number;
  failed: boolean;
}

export interface IngestObserver {
  batchIngested(batch: IngestedBatch): void;
  /** A transaction stored this many batches (more than one when they queued behind others). */
  transactionCommitted(batches: number): void;
}

export function observedIngest(service: IngestService, observer: IngestObserver): IngestService {
  return {
    async ingest(origin, batch) {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      try {
        const stored = await service.ingest(origin, batch);
        observer.batchIngested({ received: batch.length, stored, seconds: seconds(), failed: false });
        return stored;
      } catch (err) {
        observer.batchIngested({ received: batch.length, stored: 0, seconds: seconds(), failed: true });
        throw err;
      }
    },
    waiting: service.waiting,
  };
}
