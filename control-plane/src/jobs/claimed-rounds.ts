// Due work done in transactions of at most `batch` claimed rows, round after round while a
// round fills its batch; the dispatcher is woken once at the end if any round planned deliveries.
import type { Tx } from '../db/tx.js';

export interface ClaimedRound {
  /** Rows claimed (and done) by the round. */
  claimed: number;
  /** Deliveries it planned. */
  planned: number;
}

export async function inClaimedRounds(
  deps: { transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>; wakeDispatcher: () => void },
  batch: number,
  round: (tx: Tx, batch: number) => Promise<ClaimedRound>,
): Promise<number> {
  let claimed = 0;
  let planned = 0;
  for (;;) {
    const done = await deps.transaction((tx) => round(tx, batch));
    claimed += done.claimed;
    planned += done.planned;
    if (done.claimed < batch) break;
  }
  if (planned > 0) deps.wakeDispatcher();
  return claimed;
}
