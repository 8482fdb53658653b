// Store and forward: every result is on disk within `flushDelayMs` of existing and stays there
// until the control plane acknowledges the batch holding it. Results are serialized once and
// appended to current.jsonl in batches (one write and one fdatasync per flush, never per
// result); sealing renames current.jsonl to batch-<seq>-<id>.jsonl, deleted on acknowledgement.
// Every file operation runs on libuv's thread pool, one at a time in order, never on the event
// loop: a slow disk delays the spool, not the checks' schedule. A batch is sent only once its
// file is durable; a crash loses at most the last unflushed moment of results, none of them
// ever sent, so none acknowledged; at worst a result is sent twice, and ingestion ignores
// repeats.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
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
  bytes: number;
  file: string;
}

export interface SpoolStats {
  batches: number;
  results: number;
  bytes: number;
  evictedResults: number;
}

/** The results of current.jsonl: serialized once, `written` of them already durable on disk. */
interface Segment {
  results: SpooledResult[];
  lines: string[];
  bytes: number;
  written: number;
}

const CURRENT = 'current.jsonl';
const BATCH_FILE = /^batch-(\d+)-([0-9a-f-]{36})\.jsonl$/;
/** Unflushed bytes that trigger a flush before the timer does. */
const FLUSH_BYTES = 256 * 1024;

const emptySegment = (): Segment => ({ results: [], lines: [], bytes: 0, written: 0 });

export class DiskSpool {
  private readonly sealedBatches: SealedBatch[] = [];
  private current = emptySegment();
  /** Bytes appended to `current` since the last flush was asked for. */
  private unflushedBytes = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  private currentFile: FileHandle | undefined;
  /** The file operations, run one after the other; settles when the last one has. */
  private queue: Promise<void> = Promise.resolve();
  /** Results (and their bytes) of batches sealed but not yet durable. */
  private sealing = { results: 0, bytes: 0 };
  private sealedBytes = 0;
  private nextSeq = 1;
  private evicted = 0;

  private constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
    private readonly flushDelayMs: number,
    private readonly logger: Logger,
  ) {}

  /** Opens (creating) the spool in `dir` and loads whatever a previous run left there. */
  // As long as the publisher's batching delay: a batch then reaches the disk in one write.
  static open(dir: string, { maxBytes, logger, flushDelayMs = 200 }: { maxBytes: number; logger: Logger; flushDelayMs?: number }): DiskSpool {
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
   * Writes what was appended so far to current.jsonl (one write, one fdatasync); resolves once
   * it is durable. A failed write (disk full) is logged and its lines go with the next flush.
   */
  flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.unflushedBytes = 0;
    const segment = this.current;
    return this.enqueue(async () => {
      try {
        await this.writeSegment(segment);
      } catch (err) {
        this.logger.error({ err }, 'writing results to the spool failed; retrying with the next flush');
      }
    });
  }

  /** Flushes and lets go of current.jsonl (the spool can still be used; it reopens on demand). */
  async close(): Promise<void> {
    await this.flush();
    await this.enqueue(() => this.closeCurrent());
  }

  /** Settles once every file operation asked for so far has (tests, shutdown). */
  idle(): Promise<void> {
    return this.queue;
  }

  pendingCount(): number {
    return this.current.results.length;
  }

  /**
   * Moves the pending results into a new batch at once; resolves with it once its file is
   * durable and it is listed in sealed(), or null when nothing was pending. When the disk
   * fails it, the results stay pending for the next seal (and null is returned).
   */
  seal(): Promise<SealedBatch | null> {
    const segment = this.current;
    if (segment.results.length === 0) return Promise.resolve(null);
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.unflushedBytes = 0;
    this.current = emptySegment();
    this.sealing.results += segment.results.length;
    this.sealing.bytes += segment.bytes;
    const { seq, batchId, file } = this.nextBatchName();
    return this.enqueue(async () => {
      try {
        await this.writeSegment(segment);
        await this.closeCurrent();
        // current.jsonl holds exactly the segment's results: the rename makes it the batch at once.
        await rename(path.join(this.dir, CURRENT), file);
        return this.addSealed({ seq, batchId, results: segment.results, bytes: segment.bytes, file });
      } catch (err) {
        this.logger.error({ err }, 'sealing a spool batch failed; its results stay pending');
        // No later operation has run yet: what was appended since follows in the same file.
        const next = this.current;
        this.current = { results: segment.results.concat(next.results), lines: segment.lines.concat(next.lines), bytes: segment.bytes + next.bytes, written: segment.written };
        return null;
      } finally {
        this.sealing.results -= segment.results.length;
        this.sealing.bytes -= segment.bytes;
      }
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
    this.removeBatchFile(batch!);
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

  private enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.queue.then(operation);
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Appends the segment's lines not yet on disk: one write, one fdatasync. */
  private async writeSegment(segment: Segment): Promise<void> {
    const end = segment.lines.length;
    if (segment.written >= end) return;
    this.currentFile ??= await open(path.join(this.dir, CURRENT), 'a');
    await this.currentFile.write(segment.lines.slice(segment.written, end).join(''));
    await this.currentFile.datasync();
    segment.written = end;
  }

  private async closeCurrent(): Promise<void> {
    const file = this.currentFile;
    this.currentFile = undefined;
    await file?.close();
  }

  /** Forgets the batch at once; its file goes with the next turn of the queue (a crash before only means a re-send). */
  private removeBatchFile(batch: SealedBatch): void {
    this.sealedBytes -= batch.bytes;
    void this.enqueue(async () => {
      try {
        await unlink(batch.file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.logger.error({ err, file: batch.file }, 'removing a spool batch failed');
      }
    });
  }

  private nextBatchName(): { seq: number; batchId: string; file: string } {
    const seq = this.nextSeq++;
    const batchId = randomUUID();
    return { seq, batchId, file: path.join(this.dir, `batch-${String(seq).padStart(12, '0')}-${batchId}.jsonl`) };
  }

  /** Only for what a previous run left in current.jsonl. */
  private writeBatch(results: SpooledResult[]): SealedBatch {
    const { seq, batchId, file } = this.nextBatchName();
    const body = results.map((r) => JSON.stringify(r)).join('\n') + '\n';
    // Durable before current.jsonl, which held these results, is emptied below.
    writeFileSync(`${file}.tmp`, body, { flush: true });
    renameSync(`${file}.tmp`, file);
    return this.addSealed({ seq, batchId, results, bytes: Buffer.byteLength(body), file });
  }

  private addSealed(batch: SealedBatch): SealedBatch {
    this.sealedBatches.push(batch);
    this.sealedBytes += batch.bytes;
    return batch;
  }

  private load(): void {
    const seen = new Set<string>();
    for (const name of readdirSync(this.dir).sort()) {
      const match = BATCH_FILE.exec(name);
      if (name.endsWith('.tmp')) rmSync(path.join(this.dir, name), { force: true });
      if (!match) continue;
      const file = path.join(this.dir, name);
      const results = this.readLines(file).filter((r) => !seen.has(r.id) && seen.add(r.id));
      this.nextSeq = Math.max(this.nextSeq, Number(match[1]) + 1);
      if (results.length === 0) {
        rmSync(file, { force: true });
        continue;
      }
      const bytes = readFileSync(file).length;
      this.addSealed({ seq: Number(match[1]), batchId: match[2]!, results, bytes, file });
    }
    // What the previous run appended but never sealed; a result already in a batch counts once.
    const leftover = this.readLines(path.join(this.dir, CURRENT)).filter((r) => !seen.has(r.id));
    if (leftover.length > 0) this.writeBatch(leftover);
    writeFileSync(path.join(this.dir, CURRENT), '');
    this.evictIfOverSize();
    const stats = this.stats();
    if (stats.results > 0) this.logger.info({ batches: stats.batches, results: stats.results }, 'loaded unacknowledged results from the spool');
  }

  /** Reads JSON lines; a line torn by a crash mid-write is skipped, not fatal. */
  private readLines(file: string): SpooledResult[] {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const results: SpooledResult[] = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        // Lines spooled by an agent version without `degraded` read as not degraded.
        results.push({ degraded: false, ...(JSON.parse(line) as Omit<SpooledResult, 'degraded'>) });
      } catch {
        this.logger.warn({ file }, 'skipped a torn line in the spool');
      }
    }
    return results;
  }

  private evictIfOverSize(): void {
    while (this.sealedBytes + this.sealing.bytes + this.current.bytes > this.maxBytes && this.sealedBatches.length > 0) {
      const oldest = this.sealedBatches.shift()!;
      this.removeBatchFile(oldest);
      this.evicted += oldest.results.length;
      this.logger.warn({ results: oldest.results.length, evictedTotal: this.evicted, maxBytes: this.maxBytes }, 'spool full: dropped the oldest undelivered results');
    }
  }
}
