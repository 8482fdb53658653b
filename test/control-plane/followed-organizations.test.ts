// Followed organizations on a real PostgreSQL, between two replicas' buses in this process: a
// replica knows of another's new client once that replica's hold resolves, forgets it after the
// release, and counts every organization as followed whenever it may not know (before the
// first read, while its bus is cut) so that no client goes without events.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { ClusterBus } from '../../control-plane/src/cluster/cluster-bus.js';
import { createFollowedOrganizations, type FollowedOrganizations } from '../../control-plane/src/cluster/followed-organizations.js';
import { createPostgresBus } from '../../control-plane/src/cluster/postgres-bus.js';
import { createLogger } from '../../control-plane/src/logger.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { requireServerDatabase, testDatabase } from '../support/test-database.js';

interface Replica {
  bus: ClusterBus;
  followers: FollowedOrganizations;
}

describe('followed organizations across replicas', function () {
  this.timeout(20_000);
  const buses: ClusterBus[] = [];
  before(async function () {
    await requireServerDatabase(this, 'a session per bus to listen on');
  });
  afterEach(async () => {
    for (const bus of buses.splice(0)) {
      await bus.stop();
      await sql('delete from control_plane_replicas where id = $1', [bus.replicaId]);
    }
  });

  /** Two replicas, each with its lease row (follows belong to a lease), that have read each other's follows. */
  const pair = async (): Promise<[Replica, Replica]> => {
    const { url } = await testDatabase();
    const query = <T>(text: string, params?: unknown[]) => sql<T>(text, params, url);
    const made = [];
    for (let i = 0; i < 2; i++) {
      const bus = createPostgresBus({ url, query, logger: createLogger('silent'), confirmTimeoutMs: 500 });
      await bus.start();
      buses.push(bus);
      await sql(`insert into control_plane_replicas (id, expires_at) values ($1, now() + interval '1 minute')`, [bus.replicaId]);
      made.push(bus);
    }
    const [one, two] = made as [ClusterBus, ClusterBus];
    const followersOf = (bus: ClusterBus, peer: ClusterBus) => createFollowedOrganizations({ bus, query, peers: async () => [peer.replicaId], logger: createLogger('silent') });
    return [
      { bus: one, followers: followersOf(one, two) },
      { bus: two, followers: followersOf(two, one) },
    ];
  };

  it('counts every organization as followed until it has read what the others follow', async () => {
    const [a] = await pair();
    const org = randomUUID();
    expect(a.followers.followedElsewhere(org), 'before the first read').to.equal(true);
    await a.followers.refresh();
    expect(a.followers.followedElsewhere(org), 'no client anywhere').to.equal(false);
  });

  it("knows of another replica's client as soon as that replica's hold resolves, until its last client is released", async () => {
    const [a, b] = await pair();
    await a.followers.refresh();
    const [org, unfollowed] = [randomUUID(), randomUUID()];

    await b.followers.hold(org);
    expect(a.followers.followedElsewhere(org), 'right after the hold').to.equal(true);
    expect(a.followers.followedElsewhere(unfollowed)).to.equal(false);

    await b.followers.hold(org);
    b.followers.release(org);
    expect(a.followers.followedElsewhere(org), 'with one of two clients left').to.equal(true);
    b.followers.release(org);
    await poll(() => !a.followers.followedElsewhere(org), { what: 'the withdrawal read', timeoutMs: 5_000 });
    const rows = await sql('select 1 from replica_follows where organization_id = $1', [org]);
    expect(rows, 'rows left').to.deep.equal([]);
  });

  it('counts every organization as followed while its bus is cut, and reads what it missed once back', async () => {
    const [a, b] = await pair();
    await a.followers.refresh();
    const [org, unfollowed] = [randomUUID(), randomUUID()];
    const [listener] = await sql<{ pid: number }>(`select pid from pg_stat_activity where application_name = $1`, [`outpost-bus-${a.bus.replicaId.slice(0, 8)}`]);
    await sql('select pg_terminate_backend($1)', [listener!.pid]);
    await poll(() => !a.bus.listening(), { what: 'the bus cut', timeoutMs: 5_000 });
    expect(a.followers.followedElsewhere(unfollowed), 'while cut').to.equal(true);

    // Most likely missed by the cut bus; the hold waits for its confirmation in vain, then goes on.
    await b.followers.hold(org);
    await poll(() => a.bus.listening(), { what: 'the bus resynchronized', timeoutMs: 10_000 });
    expect(a.followers.followedElsewhere(org), 'the follow made during the cut').to.equal(true);
    expect(a.followers.followedElsewhere(unfollowed)).to.equal(false);
  });
});
