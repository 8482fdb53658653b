// Group commit for ingest: batches that arrive while earlier ones are being stored wait, and
// when a transaction ends the waiting ones go together in the next. Under load, the work paid
// once per transaction and once per service in it (the locks, the saved states, the commit)
// is paid once for many batches; a batch that finds a place free goes at once and waits for
// nothing. Each batch still gets its own answer, and one that cannot be stored fails alone.

export interface GroupCommitOptions<T, R> {
  /** Transactions at once; batches arriving while all run wait for the next. */
  concurrency: number;
  /** A group takes waiting items, oldest first, while their total size stays within this; the first always goes. */
  maxGroupSize: number;
  size(item: T): number;
  /** Stores the items in one transaction; answers one value per item, in their order. */
  commit(items: T[]): Promise<R[]>;
  /** Whether a group that failed so may still store some of its items alone (not when the database is down). */
  worthRetryingAlone(err: unknown): boolean;
}

interface Waiting<T, R> {
  item: T;
  resolve(value: R): void;
  reject(err: unknown): void;
}

export interface GroupCommit<T, R> {
  submit(item: T): Promise<R>;
  /** Items waiting for a transaction. */
  waiting(): number;
}

export function createGroupCommit<T, R>({ concurrency, maxGroupSize, size, commit, worthRetryingAlone }: GroupCommitOptions<T, R>): GroupCommit<T, R> {
  const queue: Waiting<T, R>[] = [];
  let running = 0;

  function next(): void {
    while (running < concurrency && queue.length > 0) {
      running += 1;
      void run(takeGroup()).finally(() => {
        running -= 1;
        next();
      });
    }
  }

  function takeGroup(): Waiting<T, R>[] {
    let total = size(queue[0]!.item);
    let count = 1;
    while (count < queue.length && total + size(queue[count]!.item) <= maxGroupSize) total += size(queue[count++]!.item);
    return queue.splice(0, count);
  }

  async function run(group: Waiting<T, R>[]): Promise<void> {
    try {
      const answers = await commit(group.map((w) => w.item));
      group.forEach((w, i) => w.resolve(answers[i]!));
    } catch (err) {
      if (group.length === 1 || !worthRetryingAlone(err)) return group.forEach((w) => w.reject(err));
      // Nothing of the group was stored: each item tries again alone, so one that cannot be
      // stored does not take the others with it.
      for (const w of group) await run([w]);
    }
  }

  return {
    submit(item) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        next();
      });
    },
    waiting: () => queue.length,
  };
}
