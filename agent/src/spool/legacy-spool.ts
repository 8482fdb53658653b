// Reads what agents before the binary spool left in the spool directory, so that an upgrade
// loses nothing: JSON-lines segments (segment-<seq>.jsonl: results, seals {"seal":id,"seq":n}
// and releases {"done":id}) and, older still, one file per sealed batch
// (batch-<seq>-<id>.jsonl) beside current.jsonl for results not yet in a batch. The spool
// writes what is still unacknowledged into a segment of its own and deletes these files.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { SpooledResult } from './encoded-results.js';

/** Results of those layouts always carry their id. */
type LegacyResult = SpooledResult & { id: string };

export interface LegacyBatch {
  seq: number;
  batchId: string;
  results: LegacyResult[];
}

export interface LegacyContent {
  /** Unacknowledged batches, oldest first. */
  batches: LegacyBatch[];
  /** Results appended but never sealed; each result is in at most one place. */
  unsealed: LegacyResult[];
  /** Every file of the earlier layouts, to delete once their content is safe elsewhere. */
  files: string[];
  /** Lines a crash tore mid-write, skipped. */
  tornLines: number;
  /** The highest batch sequence number used, even by a batch with nothing left in it; 0 for none. */
  lastSeq: number;
}

const SEGMENT_FILE = /^segment-(\d+)\.jsonl$/;
const BATCH_FILE = /^batch-(\d+)-([0-9a-f-]{36})\.jsonl$/;
const CURRENT_FILE = 'current.jsonl';

/** `names` are the directory's entries, sorted. Unfinished writes of the oldest layout (*.tmp) are removed. */
export function readLegacySpool(dir: string, names: string[]): LegacyContent {
  const content: LegacyContent = { batches: [], unsealed: [], files: [], tornLines: 0, lastSeq: 0 };
  const seen = new Set<string>();
  const fresh = (r: LegacyResult) => !seen.has(r.id) && !!seen.add(r.id);
  for (const name of names.filter((n) => n.endsWith('.tmp'))) rmSync(path.join(dir, name), { force: true });
  for (const name of names) {
    const match = BATCH_FILE.exec(name);
    if (!match) continue;
    const file = path.join(dir, name);
    content.files.push(file);
    content.lastSeq = Math.max(content.lastSeq, Number(match[1]));
    const results = resultsIn(readLines(file), content).filter(fresh);
    if (results.length > 0) content.batches.push({ seq: Number(match[1]), batchId: match[2]!, results });
  }
  if (names.includes(CURRENT_FILE)) {
    const current = path.join(dir, CURRENT_FILE);
    content.files.push(current);
    content.unsealed.push(...resultsIn(readLines(current), content).filter(fresh));
  }
  readSegments(dir, names, content, fresh);
  content.batches.sort((a, b) => a.seq - b.seq);
  return content;
}

/** Segments oldest first: a seal makes a batch of the results above it, wherever they were written. */
function readSegments(dir: string, names: string[], content: LegacyContent, fresh: (r: LegacyResult) => boolean): void {
  const released = new Set<string>();
  const batches: LegacyBatch[] = [];
  let pending: LegacyResult[] = [];
  for (const name of names.filter((n) => SEGMENT_FILE.test(n))) {
    const file = path.join(dir, name);
    content.files.push(file);
    for (const line of readLines(file)) {
      const record = parseLine(line);
      if (record.kind === 'seal') {
        content.lastSeq = Math.max(content.lastSeq, record.seq);
        batches.push({ seq: record.seq, batchId: record.batchId, results: pending });
        pending = [];
      } else if (record.kind === 'release') released.add(record.batchId);
      else if (record.kind === 'result') {
        if (fresh(record.result)) pending.push(record.result);
      } else content.tornLines++;
    }
  }
  content.batches.push(...batches.filter((b) => !released.has(b.batchId) && b.results.length > 0));
  content.unsealed.push(...pending);
}

function resultsIn(lines: string[], content: LegacyContent): LegacyResult[] {
  const results: LegacyResult[] = [];
  for (const line of lines) {
    const record = parseLine(line);
    if (record.kind === 'result') results.push(record.result);
    else content.tornLines++;
  }
  return results;
}

function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

type Line = { kind: 'result'; result: LegacyResult } | { kind: 'seal'; batchId: string; seq: number } | { kind: 'release'; batchId: string } | { kind: 'torn' };

function parseLine(line: string): Line {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { kind: 'torn' };
  }
  if (typeof value.seal === 'string' && typeof value.seq === 'number') return { kind: 'seal', batchId: value.seal, seq: value.seq };
  if (typeof value.done === 'string') return { kind: 'release', batchId: value.done };
  // Results spooled by an agent version without `degraded` read as not degraded; none of them judged the speed.
  if (typeof value.id === 'string') return { kind: 'result', result: { degraded: false, ...(value as Omit<LegacyResult, 'degraded' | 'speedJudged'>), speedJudged: false } };
  return { kind: 'torn' };
}
