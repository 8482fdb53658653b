// Store and forward: every result is on disk within `flushDelayMs` of existing and stays there
// until the control plane acknowledges the batch holding it.
//
// On disk the spool is an append-only log cut into segments (segment-<seq>.spool) of records
// (spool-records.ts): results, already encoded as they travel (encoded-results.ts); a seal,
// whose batch is the results above it in the same segment; a release (acknowledged or
// evicted). Segments are opened with O_DSYNC, so a write is durable when it returns: a flush
// is one write, one trip to libuv's thread pool, never one per result. A release goes with
// the next write; a segment is deleted once every batch sealed in it is released.
//
// File operations run on the thread pool one at a time, in order, never on the event loop: a
// slow disk delays the spool, not the checks' schedule. A batch is sent only once its seal is
// durable. A crash loses at most the last unflushed moment of results, none of them ever sent,
// so none acknowledged; at worst a result is sent twice (a release not yet written), and
// ingestion ignores repeats. On open, a segment's torn tail is cut off and results a crash
// left unsealed are sealed where they are. What earlier agent versions spooled as JSON lines
// is moved into a segment of its own (legacy-spool.ts).
import { randomUUID } from 'node:crypto';
import { closeSync, constants, mkdirSync, openSync, readdirSync, readFileSync, rmSync, truncateSync, writeSync } from 'node:fs';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { encodeResults, type SpooledResult } from './encoded-results.js';
import { readLegacySpool, type LegacyContent } from './legacy-spool.js';
import { readRecords, releaseRecord, resultsRecord, sealRecord } from './spool-records.js';

export type { SpooledResult };

export interface SealedBatch {
  seq: number;
  batchId: string;
  /** How many results it holds. */
  count: number;
  /** Its results, encoded for the wire. */
  encoded: Buffer;
}

export interface SpoolStats {
  batches: number;
  results: number;
  /** The results' encoded bytes (a result counts once it is flushed). */
  bytes: number;
  evictedResults: number;
}

interface HeldBatch extends SealedBatch {
  segment: Segment;
}

/** Results encoded together by one flush (encodeResults). */
interface Chunk {
  encoded: Uint8Array;
  count: number;
}

/** Results not yet in a batch: appended (`fresh`), or encoded, one chunk per flush, the first `written` chunks durable. */
interface Unsealed {
  fresh: SpooledResult[];
  chunks: Chunk[];
  written: number;
  count: number;
  bytes: number;
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

const SEGMENT_FILE = /^segment-(\d+)\.spool$/;
/** Results appended since the last flush that trigger one before the timer does. */
const FLUSH_RESULTS = 1000;
/** A segment is closed after the seal that takes it past this (or a quarter of the spool's size). */
const SEGMENT_BYTES = 1024 * 1024;
const APPEND_DURABLY = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC;

const emptyUnsealed = (): Unsealed => ({ fresh: [], chunks: [], written: 0, count: 0, bytes: 0 });

export class DiskSpool {
  private readonly sealedBatches: HeldBatch[] = [];
  private current = emptyUnsealed();
  private flushTimer: NodeJS.Timeout | undefined;
  private active: ActiveSegment | undefined;
  /** Release records that go with the next write. */
  private releases: Buffer[] = [];
  /** A write failed part-way at this length of the active segment: the next one cuts the file back first. */
  private tornAt: number | undefined;
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
  // A batch of urgent results (sealed within 100 ms, publisher.ts) reaches the disk in one
  // write, its seal; steady results (sealed within 500 ms) are written at 250 ms and sealed
  // later, so no result waits longer than 250 ms to be durable.
  static open(dir: string, { maxBytes, logger, flushDelayMs = 250 }: { maxBytes: number; logger: Logger; flushDelayMs?: number }): DiskSpool {
    mkdirSync(dir, { recursive: true });
    const spool = new DiskSpool(dir, maxBytes, flushDelayMs, logger);
    spool.load();
    return spool;
  }

  /** Keeps the result; it reaches the disk with the next flush, at most `flushDelayMs` later. */
  append(result: SpooledResult): void {
    this.current.fresh.push(result);
    this.current.count++;
    if (this.current.fresh.length >= FLUSH_RESULTS) void this.flush();
    else this.flushTimer ??= setTimeout(() => void this.flush(), this.flushDelayMs);
  }

  /**
   * Writes what was appended so far (one durable write); resolves once it is on disk. A failed
   * write (disk full) is logged and its results go with the next flush.
   */
  flush(): Promise<void> {
    this.stopFlushTimer();
    const unsealed = this.current;
    this.encodeFresh(unsealed);
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
    return this.current.count;
  }

  /**
   * Moves the pending results into a new batch at once; resolves with it once its seal is
   * durable and it is listed in sealed(), or null when nothing was pending. When the disk
   * fails it, the results stay pending for the next seal (and null is returned).
   */
  seal(): Promise<SealedBatch | null> {
    const unsealed = this.current;
    if (unsealed.count === 0) return Promise.resolve(null);
    this.stopFlushTimer();
    this.encodeFresh(unsealed);
    this.current = emptyUnsealed();
    this.sealing.results += unsealed.count;
    this.sealing.bytes += unsealed.bytes;
    const seq = this.nextSeq++;
    const batchId = randomUUID();
    return this.enqueue(async () => {
      try {
        await this.write(unsealed, sealRecord(batchId, seq));
      } catch (err) {
        this.logger.error({ err }, 'sealing a spool batch failed; its results stay pending');
        // No later write has run yet: what was appended since goes after these, unwritten.
        const next = this.current;
        this.current = { fresh: next.fresh, chunks: unsealed.chunks.concat(next.chunks), written: unsealed.written, count: unsealed.count + next.count, bytes: unsealed.bytes + next.bytes };
        return null;
      } finally {
        this.sealing.results -= unsealed.count;
        this.sealing.bytes -= unsealed.bytes;
      }
      // A seal is never an empty write, so it went to the active segment.
      const batch = this.addSealed({ seq, batchId, count: unsealed.count, encoded: Buffer.concat(unsealed.chunks.map((c) => c.encoded)), segment: this.active!.segment });
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
    const sealedResults = this.sealedBatches.reduce((n, b) => n + b.count, 0);
    return {
      batches: this.sealedBatches.length,
      results: sealedResults + this.sealing.results + this.current.count,
      bytes: this.sealedBytes + this.sealing.bytes + this.current.bytes,
      evictedResults: this.evicted,
    };
  }

  /** Encodes the results appended since the last flush as the next chunk of `unsealed`. */
  private encodeFresh(unsealed: Unsealed): void {
    if (unsealed.fresh.length === 0) return;
    const encoded = encodeResults(unsealed.fresh);
    unsealed.chunks.push({ encoded, count: unsealed.fresh.length });
    unsealed.bytes += encoded.length;
    unsealed.fresh = [];
    this.evictIfOverSize();
  }

  private stopFlushTimer(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
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
   * Appends, in one durable write, the releases asked for so far, the chunks of `unsealed` not
   * yet on disk and `seal` (when sealing).
   */
  private async write(unsealed: Unsealed, seal?: Buffer): Promise<void> {
    const releases = this.releases.length;
    const end = unsealed.chunks.length;
    const records = this.releases.concat(unsealed.chunks.slice(unsealed.written).map((c) => resultsRecord(c.count, c.encoded)));
    if (seal) records.push(seal);
    if (records.length === 0) return;
    const active = await this.activeSegment();
    if (this.tornAt !== undefined) {
      await active.handle!.truncate(this.tornAt);
      this.tornAt = undefined;
    }
    const bytes = Buffer.concat(records);
    try {
      for (let offset = 0; offset < bytes.length; ) offset += (await active.handle!.write(bytes, offset)).bytesWritten;
    } catch (err) {
      this.tornAt = active.bytes;
      throw err;
    }
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
    return path.join(this.dir, `segment-${String(seq).padStart(12, '0')}.spool`);
  }

  /** Forgets the batch at once; the disk learns of it with the next write, or loses its segment. */
  private release(batch: HeldBatch): void {
    this.sealedBytes -= batch.encoded.length;
    const { segment } = batch;
    segment.live -= 1;
    const active = segment === this.active?.segment;
    // The active segment goes when it is closed (rotateIfFull).
    if (segment.live === 0 && !active) return void this.enqueue(() => this.removeFile(segment.file));
    this.releases.push(releaseRecord(batch.batchId));
    // Results keep coming to the active segment, and a release goes with their next write; an
    // older segment's is written at once, or an idle agent would send its batch again after a restart.
    if (!active) void this.enqueue(() => this.write(emptyUnsealed()).catch((err: unknown) => this.logger.error({ err }, 'recording a release in the spool failed')));
  }

  private async removeFile(file: string): Promise<void> {
    try {
      await unlink(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.logger.error({ err, file }, 'removing a spool file failed');
    }
  }

  private addSealed(batch: HeldBatch): HeldBatch {
    batch.segment.live += 1;
    this.sealedBatches.push(batch);
    this.sealedBytes += batch.encoded.length;
    return batch;
  }

  private load(): void {
    const names = readdirSync(this.dir).sort();
    const legacy = readLegacySpool(this.dir, names);
    if (legacy.tornLines > 0) this.logger.warn({ lines: legacy.tornLines }, 'skipped lines of the spool torn by a crash');
    this.nextSeq = legacy.lastSeq + 1;
    const segments = this.loadSegments(names);
    if (legacy.files.length > 0) this.moveLegacy(legacy);
    for (const segment of segments) if (segment.live === 0) rmSync(segment.file, { force: true });
    this.sealedBatches.sort((a, b) => a.seq - b.seq);
    this.evictIfOverSize();
    const stats = this.stats();
    if (stats.results > 0) this.logger.info({ batches: stats.batches, results: stats.results }, 'loaded unacknowledged results from the spool');
  }

  /**
   * Reads the segments: their batches not released are listed as sealed. A segment's torn tail
   * is cut off, and results after its last seal (a crash came before it) are sealed in place.
   */
  private loadSegments(names: string[]): Segment[] {
    const read = names.flatMap((name) => {
      const match = SEGMENT_FILE.exec(name);
      if (!match) return [];
      const segment: Segment = { seq: Number(match[1]), file: path.join(this.dir, name), live: 0 };
      const bytes = readFileSync(segment.file);
      return [{ segment, bytes, ...readRecords(bytes) }];
    });
    const released = new Set<string>();
    const batches: HeldBatch[] = [];
    const leftovers: { segment: Segment; chunks: Buffer[]; count: number }[] = [];
    for (const { segment, bytes, records, intactBytes } of read) {
      this.nextSegmentSeq = Math.max(this.nextSegmentSeq, segment.seq + 1);
      let chunks: Buffer[] = [];
      let count = 0;
      for (const record of records) {
        if (record.kind === 'results') {
          chunks.push(record.encoded);
          count += record.count;
        } else if (record.kind === 'seal') {
          batches.push({ seq: record.seq, batchId: record.batchId, count, encoded: Buffer.concat(chunks), segment });
          this.nextSeq = Math.max(this.nextSeq, record.seq + 1);
          chunks = [];
          count = 0;
        } else released.add(record.batchId);
      }
      if (intactBytes < bytes.length) {
        this.logger.warn({ file: segment.file, bytes: bytes.length - intactBytes }, 'cut off the end of a spool segment torn by a crash');
        truncateSync(segment.file, intactBytes);
      }
      if (count > 0) leftovers.push({ segment, chunks, count });
    }
    for (const batch of batches) if (!released.has(batch.batchId) && batch.count > 0) this.addSealed(batch);
    for (const { segment, chunks, count } of leftovers) {
      const batch: HeldBatch = { seq: this.nextSeq++, batchId: randomUUID(), count, encoded: Buffer.concat(chunks), segment };
      appendDurably(segment.file, sealRecord(batch.batchId, batch.seq));
      this.addSealed(batch);
    }
    return read.map((r) => r.segment);
  }

  /** Writes what the earlier layouts hold into a segment of its own, durably, then deletes their files. */
  private moveLegacy(legacy: LegacyContent): void {
    const held = new Set(this.sealedBatches.map((b) => b.batchId));
    const batches = legacy.batches.filter((b) => !held.has(b.batchId));
    if (legacy.unsealed.length > 0) batches.push({ seq: this.nextSeq++, batchId: randomUUID(), results: legacy.unsealed });
    if (batches.length > 0) {
      const seq = this.nextSegmentSeq++;
      const segment: Segment = { seq, file: this.segmentFile(seq), live: 0 };
      const records: Buffer[] = [];
      for (const b of batches) {
        const encoded = Buffer.from(encodeResults(b.results));
        records.push(resultsRecord(b.results.length, encoded), sealRecord(b.batchId, b.seq));
        this.addSealed({ seq: b.seq, batchId: b.batchId, count: b.results.length, encoded, segment });
      }
      appendDurably(segment.file, Buffer.concat(records));
    }
    for (const file of legacy.files) rmSync(file, { force: true });
  }

  private evictIfOverSize(): void {
    while (this.sealedBytes + this.sealing.bytes + this.current.bytes > this.maxBytes && this.sealedBatches.length > 0) {
      const oldest = this.sealedBatches.shift()!;
      this.release(oldest);
      this.evicted += oldest.count;
      this.logger.warn({ results: oldest.count, evictedTotal: this.evicted, maxBytes: this.maxBytes }, 'spool full: dropped the oldest undelivered results');
    }
  }
}

function appendDurably(file: string, bytes: Buffer): void {
  const fd = openSync(file, APPEND_DURABLY);
  try {
    for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
  } finally {
    closeSync(fd);
  }
}
