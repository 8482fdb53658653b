// Store and forward: every result is on disk within `flushDelayMs` of existing and stays there
// until the control plane acknowledges the batch holding it.
//
// On disk the spool is an append-only log cut into segments (segment-<seq>.jsonl). A line is a
// result, a seal ({"seal":batchId,"seq":n}: the results above it not yet in a batch make that
// batch) or a release ({"done":batchId}: acknowledged or evicted). Segments are opened with
// O_DSYNC, so a write is durable when it returns: a flush is one write, one trip to libuv's
// thread pool, never one per result. (Those trips, not the bytes, were most of what the spool
// cost per check: open, write, fdatasync, close, rename and unlink per batch.) A release waits
// for the next write; a segment is deleted once every batch sealed in it is released.
//
// File operations run on the thread pool one at a time, in order, never on the event loop: a
// slow disk delays the spool, not the checks' schedule. A batch is sent only once its seal is
// durable. A crash loses at most the last unflushed moment of results, none of them ever sent,
// so none acknowledged; at worst a result is sent twice (a release not yet written), and
// ingestion ignores repeats. Files of the earlier layout (batch-*.jsonl, current.jsonl) are
// read on open and deleted as their results are acknowledged.
import { randomUUID } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';

export interface SpooledResult {
  id: string;
  serviceId: string;
  assignmentVersion: number;
  ok: boolean;
  degraded: boolean;
  responseTimeMs: number;
  message: string;
  checkedAtMs: number;
  details: Record<string, unknown>;
  adHoc: boolean;
}

export interface SealedBatch {
  seq: number;
  batchId: string;
  results: SpooledResult[];
  /** The results' bytes on disk. */
  bytes: number;
}

export interface SpoolStats {
  batches: number;
  results: number;
  bytes: number;
  evictedResults: number;
}

/** A sealed batch and where it lives: its segment, or its own file from the earlier layout. */
interface HeldBatch extends SealedBatch {
  where: Segment | string;
}

/** Results not yet in a batch: serialized once, `written` of them already durable in the active segment. */
interface Unsealed {
  results: SpooledResult[];
  lines: string[];
  bytes: number;
  written: number;
}

interface Segment {
  seq: number;
  file: string;
  /** Batches sealed in it and not released yet. */
  live: number;
}

/** The segment writes go to; opened on first use. */
interface ActiveSegment {
  segment: Segment;
  handle: FileHandle | undefined;
  bytes: number;
}

const SEGMENT_FILE = /^segment-(\d+)\.jsonl$/;
const LEGACY_BATCH_FILE = /^batch-(\d+)-([0-9a-f-]{36})\.jsonl$/;
const LEGACY_CURRENT = 'current.jsonl';
/** Unflushed bytes that trigger a flush before the timer does. */
const FLUSH_BYTES = 256 * 1024;
/** A segment is closed after the seal that takes it past this (or a quarter of the spool's size). */
const SEGMENT_BYTES = 1024 * 1024;
const APPEND_DURABLY = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC;

const emptyUnsealed = (): Unsealed => ({ results: [], lines: [], bytes: 0, written: 0 });
const sealLine = (batchId: string, seq: number) => `${JSON.stringify({ seal: batchId, seq })}\n`;
const releaseLine = (batchId: string) => `${JSON.stringify({ done: batchId })}\n`;

export class DiskSpool {
  private readonly sealedBatches: HeldBatch[] = [];
  private current = emptyUnsealed();
  /** Bytes appended to `current` since the last flush was asked for. */
  private unflushedBytes = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  private active: ActiveSegment | undefined;
  /** Release lines that go with the next write. */
  private releases: string[] = [];
  /** The last write failed part-way: the next one starts on a line of its own. */
  private tornTail = false;
  /** The file operations, run one after the other; settles when the last one has. */
  private queue: Promise<void> = Promise.resolve();
  /** Results (and their bytes) of batches sealed but not yet durable. */
  private sealing = { results: 0, bytes: 0 };
  private sealedBytes = 0;
  private nextSeq = 1;
  private nextSegmentSeq = 1;
  private evicted = 0;
  private readonly segmentBytes: number;

  private constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
    private readonly flushDelayMs: number,
    private readonly logger: Logger,
  ) {
    this.segmentBytes = Math.min(SEGMENT_BYTES, maxBytes / 4);
  }

  /** Opens (creating) the spool in `dir` and loads whatever a previous run left there. */
  // A little longer than the publisher's batching delay (200 ms): while it seals on time, each
  // batch reaches the disk in one write, its seal, and this timer never fires.
  static open(dir: string, { maxBytes, logger, flushDelayMs = 250 }: { maxBytes: number; logger: Logger; flushDelayMs?: number }): DiskSpool {
    mkdirSync(dir, { recursive: true });
    const spool = new DiskSpool(dir, maxBytes, flushDelayMs, logger);
    spool.load();
    return spool;
  }

  /** Keeps the result; it reaches the disk with the next flush, at most `flushDelayMs` later. */
  append(result: SpooledResult): void {
    const line = `${JSON.stringify(result)}\n`;
    const bytes = Buffer.byteLength(line);
    this.current.results.push(result);
    this.current.lines.push(line);
    this.current.bytes += bytes;
    this.unflushedBytes += bytes;
    if (this.unflushedBytes >= FLUSH_BYTES) void this.flush();
    else this.flushTimer ??= setTimeout(() => void this.flush(), this.flushDelayMs);
    this.evictIfOverSize();
  }

  /**
   * Writes what was appended so far (one durable write); resolves once it is on disk. A failed
   * write (disk full) is logged and its lines go with the next flush.
   */
  flush(): Promise<void> {
    this.stopFlushTimer();
    const unsealed = this.current;
    return this.enqueue(async () => {
      try {
        await this.write(unsealed);
      } catch (err) {
        this.logger.error({ err }, 'writing results to the spool failed; retrying with the next flush');
      }
    });
  }

  /** Flushes and lets go of the segment file (the spool can still be used; it reopens on demand). */
  async close(): Promise<void> {
    await this.flush();
    await this.enqueue(async () => {
      const handle = this.active?.handle;
      if (this.active) this.active.handle = undefined;
      await handle?.close();
    });
  }

  /** Settles once every file operation asked for so far has (tests, shutdown). */
  idle(): Promise<void> {
    return this.queue;
  }

  pendingCount(): number {
    return this.current.results.length;
  }

  /**
   * Moves the pending results into a new batch at once; resolves with it once its seal is
   * durable and it is listed in sealed(), or null when nothing was pending. When the disk
   * fails it, the results stay pending for the next seal (and null is returned).
   */
  seal(): Promise<SealedBatch | null> {
    const unsealed = this.current;
    if (unsealed.results.length === 0) return Promise.resolve(null);
    this.stopFlushTimer();
    this.current = emptyUnsealed();
    this.sealing.results += unsealed.results.length;
    this.sealing.bytes += unsealed.bytes;
    const seq = this.nextSeq++;
    const batchId = randomUUID();
    return this.enqueue(async () => {
      try {
        await this.write(unsealed, sealLine(batchId, seq));
      } catch (err) {
        this.logger.error({ err }, 'sealing a spool batch failed; its results stay pending');
        // No later operation has run yet: what was appended since follows in the same segment.
        const next = this.current;
        this.current = { results: unsealed.results.concat(next.results), lines: unsealed.lines.concat(next.lines), bytes: unsealed.bytes + next.bytes, written: unsealed.written };
        return null;
      } finally {
        this.sealing.results -= unsealed.results.length;
        this.sealing.bytes -= unsealed.bytes;
      }
      // A seal is never an empty write, so it went to the active segment.
      const batch = this.addSealed({ seq, batchId, results: unsealed.results, bytes: unsealed.bytes, where: this.active!.segment });
      await this.rotateIfFull();
      return batch;
    });
  }

  /** Sealed, unacknowledged batches, oldest first. */
  sealed(): readonly SealedBatch[] {
    return this.sealedBatches;
  }

  acknowledge(batchId: string): boolean {
    const index = this.sealedBatches.findIndex((b) => b.batchId === batchId);
    if (index < 0) return false;
    const [batch] = this.sealedBatches.splice(index, 1);
    this.release(batch!);
    return true;
  }

  stats(): SpoolStats {
    const sealedResults = this.sealedBatches.reduce((n, b) => n + b.results.length, 0);
    return {
      batches: this.sealedBatches.length,
      results: sealedResults + this.sealing.results + this.current.results.length,
      bytes: this.sealedBytes + this.sealing.bytes + this.current.bytes,
      evictedResults: this.evicted,
    };
  }

  private stopFlushTimer(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.unflushedBytes = 0;
  }

  private enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.queue.then(operation);
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Appends, in one durable write, the releases asked for so far, the lines of `unsealed` not
   * yet on disk and `seal` (when sealing).
   */
  private async write(unsealed: Unsealed, seal = ''): Promise<void> {
    const releases = this.releases.length;
    const end = unsealed.lines.length;
    const text = this.releases.join('') + unsealed.lines.slice(unsealed.written, end).join('') + seal;
    if (text === '') return;
    const active = await this.activeSegment();
    const bytes = Buffer.from(this.tornTail ? `\n${text}` : text);
    try {
      for (let offset = 0; offset < bytes.length; ) offset += (await active.handle!.write(bytes, offset)).bytesWritten;
    } catch (err) {
      this.tornTail = true;
      throw err;
    }
    this.tornTail = false;
    active.bytes += bytes.length;
    unsealed.written = end;
    this.releases.splice(0, releases);
  }

  private async activeSegment(): Promise<ActiveSegment> {
    if (!this.active) {
      const seq = this.nextSegmentSeq++;
      this.active = { segment: { seq, file: this.segmentFile(seq), live: 0 }, handle: undefined, bytes: 0 };
    }
    this.active.handle ??= await open(this.active.segment.file, APPEND_DURABLY);
    return this.active;
  }

  /** After a seal: nothing unsealed is in the segment, so once it is full the next write starts another. */
  private async rotateIfFull(): Promise<void> {
    const active = this.active;
    if (!active || active.bytes < this.segmentBytes) return;
    this.active = undefined;
    try {
      await active.handle?.close();
    } catch (err) {
      this.logger.error({ err, file: active.segment.file }, 'closing a spool segment failed');
    }
    if (active.segment.live === 0) await this.removeFile(active.segment.file);
  }

  private segmentFile(seq: number): string {
    return path.join(this.dir, `segment-${String(seq).padStart(12, '0')}.jsonl`);
  }

  /** Forgets the batch at once; the disk learns of it with the next write, or loses its segment. */
  private release(batch: HeldBatch): void {
    this.sealedBytes -= batch.bytes;
    const { where } = batch;
    if (typeof where === 'string') return this.removeLater(where);
    where.live -= 1;
    // The active segment goes when it is closed (rotateIfFull).
    if (where.live === 0 && where !== this.active?.segment) this.removeLater(where.file);
    else this.releases.push(releaseLine(batch.batchId));
  }

  /** With the next turn of the queue: a crash before only means a re-send. */
  private removeLater(file: string): void {
    void this.enqueue(() => this.removeFile(file));
  }

  private async removeFile(file: string): Promise<void> {
    try {
      await unlink(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.logger.error({ err, file }, 'removing a spool file failed');
    }
  }

  private addSealed(batch: HeldBatch): HeldBatch {
    if (typeof batch.where !== 'string') batch.where.live += 1;
    this.sealedBatches.push(batch);
    this.sealedBytes += batch.bytes;
    return batch;
  }

  private load(): void {
    const names = readdirSync(this.dir).sort();
    const seen = new Set<string>();
    for (const name of names.filter((n) => n.endsWith('.tmp'))) rmSync(path.join(this.dir, name), { force: true });
    this.loadLegacyBatches(names, seen);
    // What the earlier layout appended but never sealed; a result already in a batch counts once.
    const leftover = this.readResultLines(path.join(this.dir, LEGACY_CURRENT)).filter((r) => !seen.has(r.id) && seen.add(r.id));
    const segments = this.loadSegments(names, seen);
    leftover.push(...segments.unsealed);
    // Durable in a segment of its own before the files that held it go.
    if (leftover.length > 0) this.sealLeftover(leftover);
    for (const segment of segments.dead) rmSync(segment.file, { force: true });
    rmSync(path.join(this.dir, LEGACY_CURRENT), { force: true });
    this.evictIfOverSize();
    const stats = this.stats();
    if (stats.results > 0) this.logger.info({ batches: stats.batches, results: stats.results }, 'loaded unacknowledged results from the spool');
  }

  private loadLegacyBatches(names: string[], seen: Set<string>): void {
    for (const name of names) {
      const match = LEGACY_BATCH_FILE.exec(name);
      if (!match) continue;
      const file = path.join(this.dir, name);
      const results = this.readResultLines(file).filter((r) => !seen.has(r.id) && seen.add(r.id));
      this.nextSeq = Math.max(this.nextSeq, Number(match[1]) + 1);
      if (results.length === 0) rmSync(file, { force: true });
      else this.addSealed({ seq: Number(match[1]), batchId: match[2]!, results, bytes: readFileSync(file).length, where: file });
    }
  }

  /**
   * Reads the segments oldest first: the batches not released (listed as sealed), the results
   * after the last seal (a crash came before it), and the segments that hold nothing live.
   */
  private loadSegments(names: string[], seen: Set<string>): { unsealed: SpooledResult[]; dead: Segment[] } {
    const segments: Segment[] = [];
    const batches: HeldBatch[] = [];
    const released = new Set<string>();
    let unsealed = emptyUnsealed();
    for (const name of names) {
      const match = SEGMENT_FILE.exec(name);
      if (!match) continue;
      const segment: Segment = { seq: Number(match[1]), file: path.join(this.dir, name), live: 0 };
      segments.push(segment);
      this.nextSegmentSeq = Math.max(this.nextSegmentSeq, segment.seq + 1);
      for (const line of this.readLines(segment.file)) {
        const record = parseLine(line);
        if (record.kind === 'seal') {
          batches.push({ seq: record.seq, batchId: record.batchId, results: unsealed.results, bytes: unsealed.bytes, where: segment });
          this.nextSeq = Math.max(this.nextSeq, record.seq + 1);
          unsealed = emptyUnsealed();
        } else if (record.kind === 'release') released.add(record.batchId);
        else if (record.kind === 'result' && !seen.has(record.result.id)) {
          seen.add(record.result.id);
          unsealed.results.push(record.result);
          unsealed.bytes += Buffer.byteLength(line) + 1;
        } else if (record.kind === 'torn') this.logger.warn({ file: segment.file }, 'skipped a torn line in the spool');
      }
    }
    for (const batch of batches) if (!released.has(batch.batchId) && batch.results.length > 0) this.addSealed(batch);
    this.sealedBatches.sort((a, b) => a.seq - b.seq);
    return { unsealed: unsealed.results, dead: segments.filter((s) => s.live === 0) };
  }

  /** Writes results a previous run never sealed into a new segment as one batch, durably, and keeps writing there. */
  private sealLeftover(results: SpooledResult[]): void {
    const seq = this.nextSeq++;
    const batchId = randomUUID();
    const lines = results.map((r) => `${JSON.stringify(r)}\n`).join('');
    const bytes = Buffer.from(lines + sealLine(batchId, seq));
    const segmentSeq = this.nextSegmentSeq++;
    const segment: Segment = { seq: segmentSeq, file: this.segmentFile(segmentSeq), live: 0 };
    const fd = openSync(segment.file, APPEND_DURABLY | constants.O_EXCL);
    try {
      for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
      this.active = { segment, handle: undefined, bytes: fstatSync(fd).size };
    } finally {
      closeSync(fd);
    }
    this.addSealed({ seq, batchId, results, bytes: Buffer.byteLength(lines), where: segment });
  }

  private readLines(file: string): string[] {
    try {
      return readFileSync(file, 'utf8').split('\n').filter(Boolean);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  /** The results of a file of the earlier layout; a line torn by a crash mid-write is skipped, not fatal. */
  private readResultLines(file: string): SpooledResult[] {
    const results: SpooledResult[] = [];
    for (const line of this.readLines(file)) {
      const record = parseLine(line);
      if (record.kind === 'result') results.push(record.result);
      else this.logger.warn({ file }, 'skipped a torn line in the spool');
    }
    return results;
  }

  private evictIfOverSize(): void {
    while (this.sealedBytes + this.sealing.bytes + this.current.bytes > this.maxBytes && this.sealedBatches.length > 0) {
      const oldest = this.sealedBatches.shift()!;
      this.release(oldest);
      this.evicted += oldest.results.length;
      this.logger.warn({ results: oldest.results.length, evictedTotal: this.evicted, maxBytes: this.maxBytes }, 'spool full: dropped the oldest undelivered results');
    }
  }
}

type Line = { kind: 'result'; result: SpooledResult } | { kind: 'seal'; batchId: string; seq: number } | { kind: 'release'; batchId: string } | { kind: 'torn' };

function parseLine(line: string): Line {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { kind: 'torn' };
  }
  if (typeof value.seal === 'string' && typeof value.seq === 'number') return { kind: 'seal', batchId: value.seal, seq: value.seq };
  if (typeof value.done === 'string') return { kind: 'release', batchId: value.done };
  // Results spooled by an agent version without `degraded` read as not degraded.
  if (typeof value.id === 'string') return { kind: 'result', result: { degraded: false, ...(value as Omit<SpooledResult, 'degraded'>) } };
  return { kind: 'torn' };
}
