// Moves the rollup backlog into the rollup tables (ADR 0007). A round takes whole backlog rows
// and adds one delta per service and bucket for all of them, in one transaction: each result
// counts once, whichever replica folds it and whenever. Reads of rollups settle first, so a
// result acknowledged before a read is in its answer.
import type { Tx } from '../../db/tx.js';
import type { Logger } from '../../logger.js';
import type { PartitionKeeper } from './partition-keeper.js';
import type { RollupBacklogRepository } from './rollup-backlog.repository.js';
import { decodeBacklog, rollupDeltas } from './rollup-deltas.js';

export interface RollupFolderDeps {
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  backlog: RollupBacklogRepository;
  partitions: Pick<PartitionKeeper, 'minuteRollupsSince'>;
  logger: Logger;
}

export interface RollupFolder {
  /** A round of the background job: the oldest rows no other folder holds. Answers how many results it folded. */
  foldPending(): Promise<number>;
  /** The last round stopped at its limit with rows left: the job goes on at once. */
  pendingLeft(): boolean;
  /** A commit appended a row to the backlog at `now`: when the background job should fold. */
  foldDueAfterAppend(now: Date): Date;
  /**
   * Folds every row committed before the call, waiting for other folders' rounds to commit.
   * A failure is logged, not thrown: the read goes on with the rollups as they are, and the
   * job folds the rows later.
   */
  settle(): Promise<void>;
}

/** Backlog rows (ingest batches) per transaction: the deltas of a round travel as one statement. */
const ROWS_PER_ROUND = 200;
/** Rounds per job run, so one run ends even while agents keep the backlog full. */
const MAX_ROUNDS = 10;
/**
 * How long ingested results may wait in the backlog when nobody reads their rollups (every read
 * folds first): a fold then takes the batches of up to a minute at once, unless a round's worth
 * waits, which is folded at once so that a read never has much to fold.
 */
const FOLD_DELAY_MS = 60_000;

export function createRollupFolder({ transaction, backlog, partitions, logger }: RollupFolderDeps): RollupFolder {
  // Reads arriving while a settle runs share the one after it, which starts after they came:
  // a burst of reads (a public status page in an outage) costs two folds, not one per read.
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  function settle(): Promise<void> {
    if (!running) {
      running = settleNow().finally(() => (running = undefined));
      return running;
    }
    queued ??= running.then(() => {
      queued = undefined;
      return settle();
    });
    return queued;
  }

  // Every row a read must count is committed, so its id is at most the newest one seen now. A
  // batch still being ingested may hold a lower id: it is not acknowledged, so the read need
  // not count it, and its row is not visible to wait for.
  async function settleNow(): Promise<void> {
    try {
      const newest = await backlog.newest();
      // As many rounds as it takes: no row comes after `newest`, so they end.
      if (newest !== null) await foldInRounds((tx) => backlog.takeThrough(tx, newest, ROWS_PER_ROUND), Infinity);
    } catch (err) {
      logger.warn({ err }, 'could not fold the rollup backlog before a read; it answers without the latest results');
    }
  }

  /** Rounds of `take` and fold, a transaction each, until a round takes less than a full one (then `emptied`). */
  async function foldInRounds(take: (tx: Tx) => Promise<string[]>, maxRounds: number): Promise<{ folded: number; emptied: boolean }> {
    let folded = 0;
    for (let round = 0; round < maxRounds; round++) {
      const { rows, results } = await transaction(async (tx) => {
        const taken = await take(tx);
        return { rows: taken.length, results: await fold(tx, taken) };
      });
      folded += results;
      if (rows < ROWS_PER_ROUND) return { folded, emptied: true };
    }
    return { folded, emptied: false };
  }

  async function fold(tx: Tx, rows: string[]): Promise<number> {
    if (rows.length === 0) return 0;
    const results = rows.flatMap(decodeBacklog);
    const deltas = rollupDeltas(results);
    // A minute partition older than retention is dropped at midnight; its counts go with it.
    const kept = partitions.minuteRollupsSince().toISOString();
    await backlog.add(tx, { ...deltas, minute: deltas.minute.filter((d) => d.bucket >= kept) });
    return results.length;
  }

  let left = false;
  /** Rows appended since the job last began a run. */
  let appended = 0;
  return {
    async foldPending() {
      left = false;
      appended = 0;
      // A round woken by its longest wait mostly finds nothing: no transaction for those.
      if ((await backlog.newest()) === null) return 0;
      const { folded, emptied } = await foldInRounds((tx) => backlog.takeSome(tx, ROWS_PER_ROUND), MAX_ROUNDS);
      left = !emptied;
      return folded;
    },
    pendingLeft: () => left,
    foldDueAfterAppend: (now) => new Date(++appended >= ROWS_PER_ROUND ? now.getTime() : now.getTime() + FOLD_DELAY_MS),

    settle,
  };
}
