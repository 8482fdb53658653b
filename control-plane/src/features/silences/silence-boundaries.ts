// Applies silences when they start or end: due silences move to their next boundary, and
// their organizations' alerts are marked or released (silence-applier.ts) in the same
// transaction. Driven by a due timer: nothing runs while no silence starts or ends.
import type { Tx } from '../../db/tx.js';
import type { DueWork } from '../../jobs/due-timer.js';
import type { Clock } from '../../clock.js';
import type { SilenceApplier } from './silence-applier.js';
import type { SilencesRepository } from './silences.repository.js';

const BATCH = 100;

export function silenceBoundaries(deps: {
  silences: SilencesRepository;
  applier: SilenceApplier;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  wakeDispatcher: () => void;
  clock: Clock;
}): DueWork {
  return {
    async run() {
      let applied = 0;
      let planned = 0;
      for (;;) {
        const round = await deps.transaction(async (tx) => {
          const { claimed, organizations } = await deps.silences.claimDue(tx, deps.clock.now(), BATCH);
          return { claimed, planned: await deps.applier.apply(tx, organizations) };
        });
        applied += round.claimed;
        planned += round.planned;
        if (round.claimed < BATCH) break;
      }
      if (planned > 0) deps.wakeDispatcher();
      return applied;
    },
    nextDue: () => deps.silences.nextDue(),
  };
}
