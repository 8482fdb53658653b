import { expect } from 'chai';
import type { Tx } from '../../../control-plane/src/db/tx.js';
import type { RollupBacklogRepository } from '../../../control-plane/src/features/checks/rollup-backlog.repository.js';
import { encodeBacklog, type RollupDeltas } from '../../../control-plane/src/features/checks/rollup-deltas.js';
import { createRollupFolder } from '../../../control-plane/src/features/checks/rollup-folder.js';
import { createLogger } from '../../../control-plane/src/logger.js';

const SERVICE = '00000000-0000-4000-8000-00000000000a';
const row = (ms: number) => encodeBacklog([{ serviceId: SERVICE, checkedAt: new Date(ms), status: 'GREEN', responseTimeMs: 10 }]);

/** A backlog in memory whose takeAll can be held open, as a slow fold transaction is. */
function memoryBacklog() {
  const rows: string[] = [];
  const added: RollupDeltas[] = [];
  let takes = 0;
  let gate: Promise<void> | undefined;
  const repository: RollupBacklogRepository = {
    pending: async () => rows.length > 0,
    takeSome: async (_tx, limit) => rows.splice(0, limit),
    async takeAll() {
      takes += 1;
      const taken = rows.splice(0);
      await gate;
      return taken;
    },
    add: async (_tx, deltas) => void added.push(deltas),
  };
  return {
    repository,
    rows,
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
    backlog.rows.push(row(60_000));
    const release = backlog.hold();
    const first = folder.settle();
    await new Promise((resolve) => setImmediate(resolve));
    // Appended after the first settle took its rows: only a later settle can fold it.
    backlog.rows.push(row(120_000));
    const later = [folder.settle(), folder.settle(), folder.settle()];
    release();
    await Promise.all([first, ...later]);
    expect(backlog.rows, 'nothing left').to.deep.equal([]);
    expect(backlog.takes(), 'the reads during the first settle shared one').to.equal(2);
    expect(backlog.added.flatMap((d) => d.minute.map((m) => m.bucket))).to.deep.equal(['1970-01-01T00:01:00.000Z', '1970-01-01T00:02:00.000Z']);
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
    backlog.rows.push(row(60_000), row(120_000));
    expect(await folder.foldPending()).to.equal(2);
    const [deltas] = backlog.added;
    expect(deltas!.minute.map((m) => m.bucket)).to.deep.equal(['1970-01-01T00:02:00.000Z']);
    expect(deltas!.day[0]!.total_checks, 'hours and days keep them').to.equal(2);
  });
});
