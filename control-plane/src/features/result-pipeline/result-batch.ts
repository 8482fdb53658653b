// What travels down the result pipeline inside one ingest transaction: the results as they
// arrived, then as stored, the alerts they opened or resolved, who must hear of them, and the
// live events. Each step reads what the steps before it left and adds its own part.
import type { Tx } from '../../db/tx.js';
import type { AlertOutcome } from '../alerting/alert-evaluator.js';
import type { IncomingResult, StoredResult } from '../checks/check-result.js';
import type { OrganizationEvent } from '../realtime/event-bus.js';

export interface ResultBatch {
  readonly incoming: IncomingResult[];
  /** The incoming results that were stored (new, of services that exist), as they came. */
  kept: IncomingResult[];
  /** The same, in checked_at order, with what each did to its service's status. */
  stored: StoredResult[];
  /** Alerts opened and resolved, and the notices (who must hear of what) not yet planned. */
  alerts: AlertOutcome;
  /** Deliveries written to the outbox. */
  planned: number;
  /** Live events, published once the transaction commits. */
  events: OrganizationEvent[];
}

/** One step of the pipeline; a batch with nothing stored goes no further than the first. */
export type PipelineStep = (tx: Tx, batch: ResultBatch) => Promise<void>;

export function newBatch(incoming: IncomingResult[]): ResultBatch {
  return { incoming, kept: [], stored: [], alerts: { fired: [], resolved: [], notices: [] }, planned: 0, events: [] };
}
