// Store and forward: every result is on disk within `flushDelayMs` of existing and stays there
// until the control plane acknowledges the batch holding it. Results are serialized once and
// appended to current.jsonl in batches (one write and one fsync per flush, never per result);
// sealing renames current.jsonl to batch-<seq>-<id>.jsonl, deleted on acknowledgement. A
// crash loses at most the last unflushed moment of results, none of them ever sent, so none
// acknowledged; at worst a result is sent twice, and ingestion ignores repeats.
import { randomUUID } from 'node:crypto';
import { closeSync, fdatasyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
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

const CURRENT = 'current.jsonl';
const BATCH_FILE = /^batch-(\d+)-([0-9a-f-]{36})\.jsonl$/;
/** Unflushed bytes that trigger a flush before the timer does. */
const FLUSH_BYTES = 256 * 1024;

export class DiskSpool {
  private readonly sealedBatches: SealedBatch[] = [];
  private pending: SpooledResult[] = [];
  private pendingBytes = 0;
  /** Serialized lines of pending results not yet written to current.jsonl. */
  private unflushed: string[] = [];
  private unflushedBytes = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  private currentFd: number | undefined;
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
    this.pending.push(result);
    this.pendingBytes += bytes;
    this.unflushed.push(line);
    this.unflushedBytes += bytes;
    if (this.unflushedBytes >= FLUSH_BYTES) this.flush();
    else this.flushTimer ??= setTimeout(() => this.flushOrLog(), this.flushDelayMs);
    this.evictIfOverSize();
  }

  /** Writes what was appended since the last flush to current.jsonl: one write, one fsync. */
  flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.unflushed.length === 0) return;
    this.currentFd ??= openSync(path.join(this.dir, CURRENT), 'a');
    writeSync(this.currentFd, this.unflushed.join(''));
    fdatasyncSync(this.currentFd);
    this.unflushed = [];
    this.unflushedBytes = 0;
  }

  /** A timed flush that fails (disk full) keeps its lines for the next flush instead of crashing. */
  private flushOrLog(): void {
    try {
      this.flush();
    } catch (err) {
      this.logger.error({ err }, 'writing results to the spool failed; retrying with the next flush');
    }
  }

  /** Flushes and lets go of current.jsonl (the spool can still be used; it reopens on demand). */
  close(): void {
    this.flush();
    this.closeCurrent();
  }

  pendingCount(): number {
    return this.pending.length;
  }

  /** Moves the pending results into a new sealed batch; null when nothing is pending. */
  seal(): SealedBatch | null {
    if (this.pending.length === 0) return null;
    this.flush();
    this.closeCurrent();
    // current.jsonl holds exactly the pending results: the rename makes it the batch at once.
    const { seq, batchId, file } = this.nextBatchName();
    renameSync(path.join(this.dir, CURRENT), file);
    const batch = this.addSealed({ seq, batchId, results: this.pending, bytes: this.pendingBytes, file });
    this.pending = [];
    this.pendingBytes = 0;
    return batch;
  }

  /** Sealed, unacknowledged batches, oldest first. */
  sealed(): readonly SealedBatch[] {
    return this.sealedBatches;
  }

  acknowledge(batchId: string): boolean {
    const index = this.sealedBatches.findIndex((b) => b.batchId === batchId);
    if (index < 0) return false;
    const [batch] = this.sealedBatches.splice(index, 1);
    removeFile(batch!.file);
    this.sealedBytes -= batch!.bytes;
    return true;
  }

  stats(): SpoolStats {
    const sealedResults = this.sealedBatches.reduce((n, b) => n + b.results.length, 0);
    return { batches: this.sealedBatches.length, results: sealedResults + this.pending.length, bytes: this.sealedBytes + this.pendingBytes, evictedResults: this.evicted };
  }

  private closeCurrent(): void {
    if (this.currentFd === undefined) return;
    closeSync(this.currentFd);
    this.currentFd = undefined;
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
    writeFileSync(`${file}.tmp`, body);
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
    while (this.sealedBytes + this.pendingBytes > this.maxBytes && this.sealedBatches.length > 0) {
      const oldest = this.sealedBatches.shift()!;
      removeFile(oldest.file);
      this.sealedBytes -= oldest.bytes;
      this.evicted += oldest.results.length;
      this.logger.warn({ results: oldest.results.length, evictedTotal: this.evicted, maxBytes: this.maxBytes }, 'spool full: dropped the oldest undelivered results');
    }
  }
}

/** A plain unlink: rmSync's recursive machinery (an lstat first) costs more per acknowledgement. */
function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
