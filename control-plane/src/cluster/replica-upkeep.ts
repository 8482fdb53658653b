// The rounds that keep a replica in the cluster: renew its lease, notice agents that came or
// went on other replicas (or with a dead replica's lease), and now and then read every
// assignment and every replica's followed organizations afresh and clear out what dead
// replicas and old relayed events left behind.
import { createPeriodicJob, type PeriodicJob } from '../jobs/periodic-job.js';
import type { Logger } from '../logger.js';
import type { AssignmentHub } from '../features/agents/assignment-hub.js';
import type { EventRelay } from './event-relay.js';
import type { FollowedOrganizations } from './followed-organizations.js';
import { LEASE_SECONDS, type ReplicaLease } from './replica-lease.js';

/** Every this many rounds (about a minute), everything is read again. */
const FULL_ROUND_EVERY = 30;

export function createReplicaUpkeep(lease: ReplicaLease, hub: AssignmentHub, relay: EventRelay, followers: FollowedOrganizations, logger: Logger): PeriodicJob {
  let round = 0;
  return createPeriodicJob(
    'replica upkeep',
    (LEASE_SECONDS * 1000) / 3,
    async () => {
      await lease.renew();
      const full = ++round % FULL_ROUND_EVERY === 0;
      await hub.refresh({ everything: full });
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
