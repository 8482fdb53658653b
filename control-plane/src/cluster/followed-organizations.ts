// Which organizations the WebSocket clients of each replica follow, so that a replica stores
// live events for the others (event-relay.ts) only when one of them has a client to give them
// to: most results have no audience on another replica, and relaying a batch's events cost
// about as much as storing its results. Each replica keeps its own follows as rows of
// replica_follows and says so on the bus; the others read its rows afresh when told, when
// their bus resynchronizes and every upkeep round.
//
// Knowing too much only costs a needless relay; knowing too little would leave a client
// without events. So a replica announces an organization before its first client's upgrade
// completes and waits (bounded) until every live replica has read the rows; and a replica that
// has not read them yet, or whose bus is away, counts every organization as followed.
import type { Query } from '../db/pooled-sql.js';
import type { Logger } from '../logger.js';
import type { ClusterBus } from './cluster-bus.js';

export interface FollowedOrganizations {
  /** This replica gains a client of the organization; resolves once the other replicas know. */
  hold(organizationId: string): Promise<void>;
  /** One of this replica's clients of the organization is gone. */
  release(organizationId: string): void;
  /** Whether a client on another replica may follow the organization. */
  followedElsewhere(organizationId: string): boolean;
  /** Writes this replica's follows again and reads every other replica's afresh. */
  refresh(): Promise<void>;
  /** Shutting down: the replica's rows go with its lease, clients leaving need not be told. */
  stop(): void;
}

/** One process: there is no other replica to tell or to follow anything. */
export const NO_OTHER_FOLLOWERS: FollowedOrganizations = {
  hold: async () => undefined,
  release: () => undefined,
  followedElsewhere: () => false,
  refresh: async () => undefined,
  stop: () => undefined,
};

export interface FollowedOrganizationsDeps {
  bus: ClusterBus;
  query: Query;
  /** The other live replicas, which must have read a new follow before its client is admitted. */
  peers(): Promise<string[]>;
  logger: Logger;
}

export function createFollowedOrganizations({ bus, query, peers, logger }: FollowedOrganizationsDeps): FollowedOrganizations {
  const me = bus.replicaId;
  /** This replica's clients, by organization. */
  const clients = new Map<string, number>();
  /** Announcements of organizations whose first client waits for them. */
  const announcing = new Map<string, Promise<void>>();
  /** The other replicas' follows; undefined until first read. */
  let others: Map<string, Set<string>> | undefined;
  /** Replicas told about while every replica's follows were being read: read again after. */
  let toldDuringRead: Set<string> | undefined;
  let stopped = false;
  // This replica's writes run one after another, so a release never overtakes the hold it undoes.
  const serially = inSequence();
  // So do reads of every replica's follows (at start, on resync, each upkeep round): an older
  // read finishing last would undo a newer one.
  const readsInOrder = inSequence();

  const readOne = async (replicaId: string) => {
    // Before the first read there is nothing to update; that read (or the re-read after it) sees the rows.
    if (!others) return;
    const rows = await query<{ organization_id: string }>('select organization_id from replica_follows where replica_id = $1', [replicaId]);
    if (rows.length === 0) others.delete(replicaId);
    else others.set(replicaId, new Set(rows.map((r) => r.organization_id)));
  };

  const readAll = () =>
    readsInOrder(async () => {
      toldDuringRead = new Set();
      try {
        const rows = await query<{ replica_id: string; organization_id: string }>('select replica_id, organization_id from replica_follows where replica_id <> $1', [me]);
        const read = new Map<string, Set<string>>();
        for (const row of rows) read.set(row.replica_id, (read.get(row.replica_id) ?? new Set<string>()).add(row.organization_id));
        others = read;
        for (const replicaId of toldDuringRead) await readOne(replicaId);
      } finally {
        toldDuringRead = undefined;
      }
    });

  bus.on('follows', async ({ id }) => {
    toldDuringRead?.add(id);
    await readOne(id);
  });
  bus.onResync(readAll);

  const announce = (organizationId: string) =>
    serially(async () => {
      if (!clients.has(organizationId)) return;
      await query('insert into replica_follows (replica_id, organization_id) values ($1, $2) on conflict do nothing', [me, organizationId]);
      const late = await bus.publishConfirmed({ k: 'follows', id: me }, await peers());
      if (late.length > 0) logger.warn({ replicas: late, organizationId }, 'replicas did not confirm a followed organization in time');
    });

  const withdraw = (organizationId: string) =>
    serially(async () => {
      if (clients.has(organizationId)) return;
      await query('delete from replica_follows where replica_id = $1 and organization_id = $2', [me, organizationId]);
      await bus.publish({ k: 'follows', id: me });
    }).catch((err) => logger.warn({ err, organizationId }, 'could not withdraw a followed organization'));

  const release = (organizationId: string) => {
    if (stopped) return;
    const left = (clients.get(organizationId) ?? 0) - 1;
    if (left > 0) return void clients.set(organizationId, left);
    clients.delete(organizationId);
    void withdraw(organizationId);
  };

  return {
    async hold(organizationId) {
      const held = clients.get(organizationId) ?? 0;
      clients.set(organizationId, held + 1);
      if (held === 0 && !announcing.has(organizationId)) {
        const started = announce(organizationId);
        announcing.set(organizationId, started);
        void started.catch(() => undefined).finally(() => announcing.get(organizationId) === started && announcing.delete(organizationId));
      }
      // Every client that arrives while the announcement is under way waits for it too.
      const announced = announcing.get(organizationId);
      if (!announced) return;
      try {
        await announced;
      } catch (err) {
        release(organizationId);
        throw err;
      }
    },
    release,
    followedElsewhere(organizationId) {
      if (!others || !bus.listening()) return true;
      for (const orgs of others.values()) if (orgs.has(organizationId)) return true;
      return false;
    },
    async refresh() {
      // A replica whose lease was forgotten (it stalled past it) lost its rows with it.
      if (clients.size > 0) {
        await serially(async () => {
          await query('insert into replica_follows (replica_id, organization_id) select $1, unnest($2::uuid[]) on conflict do nothing', [me, [...clients.keys()]]);
        });
      }
      await readAll();
    },
    stop() {
      stopped = true;
    },
  };
}

/** Runs the work it is given one piece after another; each call resolves when its own piece is done. */
function inSequence(): (work: () => Promise<void>) => Promise<void> {
  let last: Promise<void> = Promise.resolve();
  return (work) => {
    const done = last.then(work);
    last = done.catch(() => undefined);
    return done;
  };
}
