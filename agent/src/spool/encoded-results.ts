// Results are encoded once, when they reach the spool, in the form they travel in: the
// repeated `results` field of a ResultBatch (proto/agent.proto). The spool writes those bytes
// to disk and keeps them until the batch is acknowledged; a send, and every re-send, only puts
// the envelope around them. (Each result used to be written as a JSON line and encoded again
// for every send, and held as objects until acknowledged; that cost a few per cent of an
// HTTP check's CPU, P1 in bench/agent-cpu.ts.)
//
// Every result of the agent passes through here, so the usual result is written by hand
// straight into one buffer sized beforehand: the generated encoder builds a Struct object per
// result, a Value per detail, a Uint8Array per string (TextEncoder) and a chunk list per
// nested message: two fifths of the agent's own JavaScript per check in a profile at 1,000
// checks/s. The bytes are those of the generated CheckResult.encode (tested); a result the
// hand-written path does not cover (a negative integer, details nested deeper than probers
// make them, or holding undefined inside) is encoded by the generated code.
import { randomFillSync, randomUUID } from 'node:crypto';
import { CheckResult } from '../../../shared/src/gen/agent.js';
import { fieldTag as tag, stringFieldSize, varintSize, WireType, writeBoolField, writeDoubleField, writeStringField, writeVarint, writeVarintField } from '../grpc/protobuf-wire.js';

export type SpooledResult = Omit<CheckResult, 'id'> & {
  /**
   * The id ingestion deduplicates on: a result carried over from an older spool keeps its own;
   * a new one is given a random UUID as it is encoded, before it is durable or sent, written
   * straight from random bytes (a UUID string per result cost more than encoding it).
   */
  id?: string;
};

type Details = NonNullable<CheckResult['details']>;

const { varint: VARINT, fixed64: FIXED64, lengthDelimited: LENGTH_DELIMITED } = WireType;

const RESULT_BATCH_ID = tag(1, LENGTH_DELIMITED);
const RESULT_BATCH_RESULTS = tag(2, LENGTH_DELIMITED);
const AGENT_MESSAGE_RESULTS = tag(2, LENGTH_DELIMITED);

const RESULT = {
  id: tag(1, LENGTH_DELIMITED),
  serviceId: tag(2, LENGTH_DELIMITED),
  assignmentVersion: tag(3, VARINT),
  ok: tag(4, VARINT),
  responseTimeMs: tag(5, FIXED64),
  message: tag(6, LENGTH_DELIMITED),
  checkedAtMs: tag(7, VARINT),
  details: tag(8, LENGTH_DELIMITED),
  adHoc: tag(9, VARINT),
  degraded: tag(10, VARINT),
  speedJudged: tag(11, VARINT),
};
/** google.protobuf.Struct's map entry, and the entry's key and value. */
const STRUCT_FIELD = tag(1, LENGTH_DELIMITED);
const ENTRY_KEY = tag(1, LENGTH_DELIMITED);
const ENTRY_VALUE = tag(2, LENGTH_DELIMITED);
/** google.protobuf.Value's kinds, and ListValue's repeated values. */
const VALUE = { null: tag(1, VARINT), number: tag(2, FIXED64), string: tag(3, LENGTH_DELIMITED), bool: tag(4, VARINT), struct: tag(5, LENGTH_DELIMITED), list: tag(6, LENGTH_DELIMITED) };
const LIST_VALUES = tag(1, LENGTH_DELIMITED);

/** The results as the repeated `results` field of a ResultBatch. */
export function encodeResults(results: readonly SpooledResult[]): Buffer {
  // Two passes: sizes first (a length prefix precedes what it measures), then one exact buffer.
  const sizes = new Array<number>(results.length);
  const detailsSizes = new Array<number>(results.length);
  const generated = new Array<Uint8Array | undefined>(results.length);
  let total = 0;
  for (let i = 0; i < results.length; i++) {
    const result = results[i]!;
    if (writtenByHand(result)) {
      detailsSizes[i] = result.details === undefined ? 0 : detailsSize(result.details);
      sizes[i] = resultSize(result, detailsSizes[i]!);
    } else {
      generated[i] = CheckResult.encode({ ...result, id: result.id ?? randomUUID() }).finish();
      sizes[i] = generated[i]!.length;
    }
    total += 1 + varintSize(sizes[i]!) + sizes[i]!;
  }
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < results.length; i++) {
    out[at++] = RESULT_BATCH_RESULTS;
    at = writeVarint(out, at, sizes[i]!);
    const bytes = generated[i];
    if (bytes) {
      out.set(bytes, at);
      at += bytes.length;
    } else {
      at = writeResult(out, at, results[i]!, detailsSizes[i]!);
    }
  }
  if (nestedSizes.size > 0) nestedSizes.clear();
  return out;
}

/** The AgentMessage carrying the batch `batchId` of the `encoded` results (encodeResults, concatenated). */
export function resultsMessage(batchId: string, encoded: Uint8Array): Buffer {
  const batchSize = 1 + stringFieldSize(batchId) + encoded.length;
  const out = Buffer.allocUnsafe(1 + varintSize(batchSize) + batchSize);
  out[0] = AGENT_MESSAGE_RESULTS;
  let at = writeVarint(out, 1, batchSize);
  at = writeStringField(out, at, RESULT_BATCH_ID, batchId);
  out.set(encoded, at);
  return out;
}

function writtenByHand(result: SpooledResult): boolean {
  if (!isVarint64(result.assignmentVersion) || !isVarint64(result.checkedAtMs)) return false;
  if (result.details === undefined) return true;
  for (const key of Object.keys(result.details)) {
    const value: unknown = result.details[key];
    // A top-level undefined is left out, as the generated encoder leaves it out. Most details are
    // numbers and text: they are told apart here, without a call (every result passes here).
    const kind = typeof value;
    if (kind === 'number' || kind === 'string' || kind === 'boolean' || value === undefined) continue;
    if (!isDetail(value, 0)) return false;
  }
  return true;
}

/** Nested details as probers make them (assertions, MULTISTEP steps): plain objects and arrays a few levels deep, no undefined inside. */
const MAX_DEPTH = 6;

function isDetail(value: unknown, depth: number): value is Detail {
  if (value === null) return true;
  const kind = typeof value;
  if (kind === 'string' || kind === 'number' || kind === 'boolean') return true;
  if (kind !== 'object' || depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.every((item) => isDetail(item, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key of Object.keys(value as object)) if (!isDetail((value as Record<string, unknown>)[key], depth + 1)) return false;
  return true;
}

/** A number written here as the generated encoder writes it: a non-negative safe integer. */
const isVarint64 = (value: number) => Number.isSafeInteger(value) && value >= 0;

// Each size and write mirrors CheckResult.encode: the same fields, in the same order, left
// out under the same conditions.
function resultSize(r: SpooledResult, detailsBytes: number): number {
  let size = 0;
  if (r.id === undefined) size += 2 + UUID_LENGTH;
  else if (r.id !== '') size += 1 + stringFieldSize(r.id);
  if (r.serviceId !== '') size += 1 + stringFieldSize(r.serviceId);
  if (r.assignmentVersion !== 0) size += 1 + varintSize(r.assignmentVersion);
  if (r.ok !== false) size += 2;
  if (r.responseTimeMs !== 0) size += 9;
  if (r.message !== '') size += 1 + stringFieldSize(r.message);
  if (r.checkedAtMs !== 0) size += 1 + varintSize(r.checkedAtMs);
  if (r.details !== undefined) size += 1 + varintSize(detailsBytes) + detailsBytes;
  if (r.adHoc !== false) size += 2;
  if (r.degraded !== false) size += 2;
  if (r.speedJudged !== false) size += 2;
  return size;
}

function writeResult(out: Buffer, at: number, r: SpooledResult, detailsBytes: number): number {
  if (r.id === undefined) at = writeRandomUuid(out, at);
  else if (r.id !== '') at = writeStringField(out, at, RESULT.id, r.id);
  if (r.serviceId !== '') at = writeStringField(out, at, RESULT.serviceId, r.serviceId);
  if (r.assignmentVersion !== 0) at = writeVarintField(out, at, RESULT.assignmentVersion, r.assignmentVersion);
  if (r.ok !== false) at = writeBoolField(out, at, RESULT.ok, r.ok);
  if (r.responseTimeMs !== 0) at = writeDoubleField(out, at, RESULT.responseTimeMs, r.responseTimeMs);
  if (r.message !== '') at = writeStringField(out, at, RESULT.message, r.message);
  if (r.checkedAtMs !== 0) at = writeVarintField(out, at, RESULT.checkedAtMs, r.checkedAtMs);
  if (r.details !== undefined) at = writeDetails(out, writeVarintField(out, at, RESULT.details, detailsBytes), r.details);
  if (r.adHoc !== false) at = writeBoolField(out, at, RESULT.adHoc, r.adHoc);
  if (r.degraded !== false) at = writeBoolField(out, at, RESULT.degraded, r.degraded);
  if (r.speedJudged !== false) at = writeBoolField(out, at, RESULT.speedJudged, r.speedJudged);
  return at;
}

function detailsSize(details: Details): number {
  let size = 0;
  for (const key of Object.keys(details)) {
    const value: unknown = details[key];
    if (value === undefined) continue;
    const entry = entrySize(key, value as Detail);
    size += 1 + varintSize(entry) + entry;
  }
  return size;
}

function writeDetails(out: Buffer, at: number, details: Details): number {
  for (const key of Object.keys(details)) {
    const value = details[key] as Detail | undefined;
    if (value === undefined) continue;
    at = writeEntry(out, at, key, value);
  }
  return at;
}

type Scalar = string | number | boolean | null;
type Detail = Scalar | Detail[] | { [key: string]: Detail };

function writeEntry(out: Buffer, at: number, key: string, value: Detail): number {
  out[at++] = STRUCT_FIELD;
  at = writeVarint(out, at, entrySize(key, value));
  if (key !== '') at = writeStringField(out, at, ENTRY_KEY, key);
  out[at++] = ENTRY_VALUE;
  at = writeVarint(out, at, valueSize(value));
  return writeValue(out, at, value);
}

/** A Value's fields: its kind's tag and content. */
function writeValue(out: Buffer, at: number, value: Detail): number {
  if (value === null) return writeVarintField(out, at, VALUE.null, 0);
  if (typeof value === 'number') return writeDoubleField(out, at, VALUE.number, value);
  if (typeof value === 'string') return writeStringField(out, at, VALUE.string, value);
  if (typeof value === 'boolean') return writeBoolField(out, at, VALUE.bool, value);
  if (Array.isArray(value)) {
    out[at++] = VALUE.list;
    at = writeVarint(out, at, nestedSize(value));
    for (const item of value) {
      out[at++] = LIST_VALUES;
      at = writeVarint(out, at, valueSize(item));
      at = writeValue(out, at, item);
    }
    return at;
  }
  out[at++] = VALUE.struct;
  at = writeVarint(out, at, nestedSize(value));
  for (const key of Object.keys(value)) at = writeEntry(out, at, key, value[key]!);
  return at;
}

function entrySize(key: string, value: Detail): number {
  const valueBytes = valueSize(value);
  return (key !== '' ? 1 + stringFieldSize(key) : 0) + 1 + varintSize(valueBytes) + valueBytes;
}

/** A Value of one kind: its tag, then a varint (null: 0, a bool), 8 bytes (a number), a string, or a nested Struct or ListValue. */
function valueSize(value: Detail): number {
  if (value === null || typeof value === 'boolean') return 2;
  if (typeof value === 'number') return 9;
  if (typeof value === 'string') return 1 + stringFieldSize(value);
  const inner = nestedSize(value);
  return 1 + varintSize(inner) + inner;
}

/**
 * The size of a nested Struct or ListValue, worked out once per encoding: every level above it
 * asks again (its entry's size, then its own), and each string's size is a call into C++.
 */
const nestedSizes = new Map<object, number>();

function nestedSize(value: Detail[] | { [key: string]: Detail }): number {
  let size = nestedSizes.get(value);
  if (size === undefined) {
    size = Array.isArray(value) ? listSize(value) : structSize(value);
    nestedSizes.set(value, size);
  }
  return size;
}

function listSize(list: Detail[]): number {
  let size = 0;
  for (const item of list) {
    const bytes = valueSize(item);
    size += 1 + varintSize(bytes) + bytes;
  }
  return size;
}

function structSize(struct: { [key: string]: Detail }): number {
  let size = 0;
  for (const key of Object.keys(struct)) {
    const entry = entrySize(key, struct[key]!);
    size += 1 + varintSize(entry) + entry;
  }
  return size;
}

const UUID_LENGTH = 36;
const HEX = Buffer.from('0123456789abcdef');
/** Random bytes for 256 UUIDs at a time. */
const randomPool = Buffer.alloc(16 * 256);
let randomAt = randomPool.length;

/** The id field holding a fresh version 4 UUID (RFC 9562), as lowercase text. */
function writeRandomUuid(out: Buffer, at: number): number {
  if (randomAt === randomPool.length) {
    randomFillSync(randomPool);
    randomAt = 0;
  }
  out[at++] = RESULT.id;
  out[at++] = UUID_LENGTH;
  for (let i = 0; i < 16; i++) {
    let byte = randomPool[randomAt + i]!;
    if (i === 6) byte = (byte & 0x0f) | 0x40; // version 4
    else if (i === 8) byte = (byte & 0x3f) | 0x80; // variant 10
    if (i === 4 || i === 6 || i === 8 || i === 10) out[at++] = 0x2d; // '-'
    out[at++] = HEX[byte >> 4]!;
    out[at++] = HEX[byte & 0x0f]!;
  }
  randomAt += 16;
  return at;
}
