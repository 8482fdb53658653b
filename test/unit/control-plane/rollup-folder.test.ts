import { expect } from 'chai';
import type { Tx } from '../../../control-plane/src/db/tx.js';
import type { RollupBacklogRepository } from '../../../control-plane/src/features/checks/rollup-backlog.repository.js';
import { encodeBacklog, type RollupDeltas } from '../../../control-plane/src/features/checks/rollup-deltas.js';
import { createRollupFolder } from '../../../control-plane/src/features/checks/rollup-folder.js';
import { createLogger } from '../../../control-plane/src/logger.js';

const SERVICE = '00000000-0000-4000-8000-00000000000a';
const row = (ms: number) => encodeBacklog([{ serviceId: SERVICE, checkedAt: new Date(ms), status: 'GREEN', responseTimeMs: 10 }]);

/** A backlog in memory whose takes for a read can be held open, as a slow fold transaction is. */
function memoryBacklog() {
  const rows: { id: number; results: string }[] = [];
  const added: RollupDeltas[] = [];
  let lastId = 0;
  let takes = 0;
  let gate: Promise<void> | undefined;
  const take = (upTo: number, limit: number) => {
    const taken = rows.filter((r) => r.id <= upTo).slice(0, limit);
    for (const r of taken) rows.splice(rows.indexOf(r), 1);
    return taken.map((r) => r.results);
  };
  const repository: RollupBacklogRepository = {
    newest: async () => (rows.length === 0 ? null : String(rows.at(-1)!.id)),
    takeSome: async (_tx, limit) => take(Infinity, limit),
    async takeThrough(_tx, newest, limit) {
      takes += 1;
      const taken = take(Number(newest), limit);
      await gate;
      return taken;
    },
    add: async (_tx, deltas) => void added.push(deltas),
  };
  return {
    repository,
    append: (...results: string[]) => results.forEach((r) => rows.push({ id: ++lastId, results: r })),
    left: () => rows.length,
    added,
    takes: () => takes,
    hold(): () => void {
      let open!: () => void;
      gate = new Promise((resolve) => (open = resolve));
      return () => {
        gate = undefined;
        open();
      };
    },
  };
}

function folderOn(backlog: RollupBacklogRepository, { minuteRollupsSince = new Date(0), onTransaction = () => {} } = {}) {
  return createRollupFolder({
    transaction: (work) => {
      onTransaction();
      return work({} as Tx);
    },
    backlog,
    partitions: { minuteRollupsSince: () => minuteRollupsSince },
    logger: createLogger('silent'),
  });
}

describe('rollup folder', () => {
  it('makes reads that arrive during a settle share one more settle, which folds what came meanwhile', async () => {
    const backlog = memoryBacklog();
    const folder = folderOn(backlog.repository);
    backlog.append(row(60_000));
    const release = backlog.hold();
    const first = folder.settle();
    await new Promise((resolve) => setImmediate(resolve));
    // Appended after the first settle took its rows: only a later settle can fold it.
    backlog.append(row(120_000));
    const later = [folder.settle(), folder.settle(), folder.settle()];
    release();
    await Promise.all([first, ...later]);
    expect(backlog.left(), 'nothing left').to.equal(0);
    expect(backlog.takes(), 'the reads during the first settle shared one').to.equal(2);
    expect(backlog.added.flatMap((d) => d.minute.map((m) => m.bucket))).to.deep.equal(['1970-01-01T00:01:00.000Z', '1970-01-01T00:02:00.000Z']);
  });

  it('settles a backlog of many rows in transactions of a bounded number of rows', async () => {
    const backlog = memoryBacklog();
    let transactions = 0;
    const folder = folderOn(backlog.repository, { onTransaction: () => (transactions += 1) });
    backlog.append(...Array.from({ length: 450 }, (_, i) => row(i * 60_000)));
    await folder.settle();
    expect(backlog.left()).to.equal(0);
    expect(transactions, '200 + 200 + 50').to.equal(3);
    expect(backlog.added.reduce((n, d) => n + d.day.reduce((m, x) => m + x.total_checks, 0), 0)).to.equal(450);
  });

  it('folds nothing, in no transaction, when the backlog is empty', async () => {
    const backlog = memoryBacklog();
    let transactions = 0;
    const folder = folderOn(backlog.repository, { onTransaction: () => (transactions += 1) });
    expect(await folder.foldPending()).to.equal(0);
    await folder.settle();
    expect(transactions).to.equal(0);
  });

  it('leaves out minute deltas older than the minute rollups kept', async () => {
    const backlog = memoryBacklog();
    const folder = folderOn(backlog.repository, { minuteRollupsSince: new Date(100_000) });
    backlog.append(row(60_000), row(120_000));
    expect(await folder.foldPending()).to.equal(2);
    const [deltas] = backlog.added;
    expect(deltas!.minute.map((m) => m.bucket)).to.deep.equal(['1970-01-01T00:02:00.000Z']);
    expect(deltas!.day[0]!.total_checks, 'hours and days keep them').to.equal(2);
  });
});
