// The rounds that keep a replica in the cluster: renew its lease, notice agents that came or
// went on other replicas (or with a dead replica's lease), and now and then read every
// assignment and every replica's followed organizations afresh and clear out what dead
// replicas and old relayed events left behind.
import { createPeriodicJob, type PeriodicJob } from '../jobs/periodic-job.js';
import type { Logger } from '../logger.js';
import type { AssignmentHub } from '../features/agents/assignment-hub.js';
import type { EventRelay } from './event-relay.js';
import type { FollowedOrganizations } from './followed-organizations.js';
import type { ReplicaLease } from './replica-lease.js';

/** About this often, everything is read again. */
const FULL_ROUND_MS = 60_000;

export function createReplicaUpkeep(lease: ReplicaLease, hub: AssignmentHub, relay: EventRelay, followers: FollowedOrganizations, logger: Logger): PeriodicJob {
  let round = 0;
  let hadOthers = true;
  const fullRoundEvery = Math.max(1, Math.round(FULL_ROUND_MS / lease.renewEveryMs));
  return createPeriodicJob(
    'replica upkeep',
    lease.renewEveryMs,
    async () => {
      await lease.renew();
      const full = ++round % fullRoundEvery === 0;
      // Agents come and go on other replicas: a replica alone has nothing to notice between full
      // rounds, except, once, the agents of the last other replica, whose lease just ran out.
      const others = lease.othersAlive();
      if (full || others || hadOthers) await hub.refresh({ everything: full });
      hadOthers = others;
      if (full) {
        await lease.forgetDead();
        await relay.prune();
        await followers.refresh();
      }
      return 0;
    },
    logger,
  );
}
