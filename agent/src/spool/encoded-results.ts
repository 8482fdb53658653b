// Results are encoded once, when they reach the spool, in the form they travel in: the
// repeated `results` field of a ResultBatch (proto/agent.proto). The spool writes those bytes
// to disk and keeps them until the batch is acknowledged; a send, and every re-send, only puts
// the envelope around them. (Each result used to be written as a JSON line and encoded again
// for every send, and held as objects until acknowledged; that cost a few per cent of an
// HTTP check's CPU, P1 in bench/agent-cpu.ts.)
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { CheckResult } from '../../../shared/src/gen/agent.js';

export type SpooledResult = CheckResult;

/** Tags of the fields the envelope is made of: field number and wire type 2 (length-delimited). */
const RESULT_BATCH_RESULTS = (2 << 3) | 2;
const RESULT_BATCH_ID = (1 << 3) | 2;
const AGENT_MESSAGE_RESULTS = (2 << 3) | 2;

export function encodeResults(results: readonly SpooledResult[]): Uint8Array {
  const writer = new BinaryWriter();
  for (const result of results) CheckResult.encode(result, writer.uint32(RESULT_BATCH_RESULTS).fork()).join();
  return writer.finish();
}

/** The AgentMessage carrying the batch `batchId` of the `encoded` results (encodeResults, concatenated). */
export function resultsMessage(batchId: string, encoded: Uint8Array): Uint8Array {
  const writer = new BinaryWriter();
  writer.uint32(AGENT_MESSAGE_RESULTS).fork().uint32(RESULT_BATCH_ID).string(batchId).raw(encoded).join();
  return writer.finish();
}
