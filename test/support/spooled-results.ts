// Reads what an agent spooled: a batch's results as the control plane decodes them, and how
// many results a spool directory holds.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { resultsMessage } from '../../agent/src/spool/encoded-results.js';
import { readRecords } from '../../agent/src/spool/spool-records.js';
import type { SealedBatch } from '../../agent/src/spool/disk-spool.js';
import { AgentMessage, type CheckResult } from '../../shared/src/gen/agent.js';

export function resultsOf(batch: SealedBatch): CheckResult[] {
  return decodeResults(batch.encoded, batch.batchId);
}

/** Results encoded by the spool (a batch's, or a results record's), sent as the batch `batchId`. */
export function decodeResults(encoded: Uint8Array, batchId = 'any'): CheckResult[] {
  const payload = AgentMessage.decode(resultsMessage(batchId, encoded)).payload;
  if (payload?.$case !== 'results') throw new Error('not a results message');
  if (payload.value.batchId !== batchId) throw new Error(`the message names batch ${payload.value.batchId}, not ${batchId}`);
  return payload.value.results;
}

/** Results in the spool's segments that are waiting: sealed in a batch not released, or not sealed yet. */
export function spooledResultCount(spoolDir: string): number {
  const released = new Set<string>();
  const batches = new Map<string, number>();
  let unsealed = 0;
  for (const name of readdirSync(spoolDir).filter((f) => /^segment-\d+\.spool$/.test(f)).sort()) {
    let pending = 0;
    for (const record of readRecords(readFileSync(path.join(spoolDir, name))).records) {
      if (record.kind === 'results') {
        pending += record.count;
      } else if (record.kind === 'seal') {
        batches.set(record.batchId, pending);
        pending = 0;
      } else {
        released.add(record.batchId);
      }
    }
    unsealed += pending;
  }
  return [...batches].reduce((n, [id, count]) => (released.has(id) ? n : n + count), unsealed);
}
