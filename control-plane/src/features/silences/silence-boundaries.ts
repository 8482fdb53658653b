// Applies silences when they start or end: due silences move to their next boundary, and
// their organizations' alerts are marked or released (silence-applier.ts) in the same
// transaction. Driven by a due timer: nothing runs while no silence starts or ends.
import type { Tx } from '../../db/tx.js';
import { inClaimedRounds } from '../../jobs/claimed-rounds.js';
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
    run: () =>
      inClaimedRounds(deps, BATCH, async (tx, batch) => {
        const { claimed, organizations } = await deps.silences.claimDue(tx, deps.clock.now(), batch);
        return { claimed, planned: await deps.applier.apply(tx, organizations) };
      }),
    nextDue: () => deps.silences.nextDue(),
  };
}
