// Group commit for ingest: batches that arrive while earlier ones are being stored wait, and
// when a transaction ends the oldest waiting one goes in the next, with the others waiting of
// the same key (the same agent), and with other keys' when those are too few. Under load, the
// work paid once per transaction and once per service in it (the locks, the saved states, the
// commit) is paid once for many batches; a batch that finds a place free goes at once and
// waits for nothing. Each batch still gets its own answer, and one that cannot be stored fails
// alone.

export interface GroupCommitOptions<T, R> {
  /** Transactions at once; batches arriving while all run wait for the next. */
  concurrency: number;
  /** A group takes the waiting items of its first item's key that fit within this total size, oldest first; the first always goes. */
  maxGroupSize: number;
  /** A group still smaller than this then takes waiting items of other keys, oldest first, while it stays within this size. */
  fillSize: number;
  size(item: T): number;
  key(item: T): string;
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

export function createGroupCommit<T, R>({ concurrency, maxGroupSize, fillSize, size, key, commit, worthRetryingAlone }: GroupCommitOptions<T, R>): GroupCommit<T, R> {
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
    const group = [queue.shift()!];
    const groupKey = key(group[0]!.item);
    let total = size(group[0]!.item);
    const take = (limit: number, wanted: (item: T) => boolean) => {
      for (let i = 0; i < queue.length && total < limit; ) {
        const { item } = queue[i]!;
        if (wanted(item) && total + size(item) <= limit) {
          total += size(item);
          group.push(...queue.splice(i, 1));
        } else {
          i += 1;
        }
      }
    };
    take(maxGroupSize, (item) => key(item) === groupKey);
    take(fillSize, () => true);
    return group;
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
