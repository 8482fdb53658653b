// Live events (results, status changes, alerts) for the WebSocket clients of the other
// replicas. The events of a transaction are stored as one cluster_events row in that
// transaction, and the row's number goes out by NOTIFY on commit: so a batch that is stored
// is announced, exactly once, even if this replica dies right after the commit. Each replica
// publishes the events it made itself to its own clients directly. When its bus reconnects, a
// replica reads the rows it missed meanwhile; the numbers it has handled keep each row once.
// Only the events of organizations another replica's clients follow are stored
// (followed-organizations.ts); a replica alone stores nothing.
import { queryBound, type Tx } from '../db/tx.js';
import type { Query } from '../db/pooled-sql.js';
import type { Logger } from '../logger.js';
import type { EventBus, OrganizationEvent } from '../features/realtime/event-bus.js';
import type { ClusterBus } from './cluster-bus.js';
import type { FollowedOrganizations } from './followed-organizations.js';

/** Organizations named in one notification at most (36 bytes each, within NOTIFY's 8,000). */
const MAX_NAMED_ORGANIZATIONS = 150;
/** Other replicas read a row within moments; it is kept this long for slow ones. */
const KEEP_SECONDS = 300;

export interface EventRelay {
  /**
   * The organizations whose live events another replica may want now (they are relayed only
   * then), as a test made once for a whole transaction's events.
   */
  wanted(): (organizationId: string) => boolean;
  /** Hands those of `events` another replica wants to the other replicas when `tx` commits. */
  relay(tx: Tx, events: OrganizationEvent[]): Promise<void>;
  /** Deletes rows every replica has had time to read; answers how many. */
  prune(): Promise<number>;
}

const NOBODY = () => false;

/** One process: its own clients already have every event. */
export const NO_RELAY: EventRelay = { wanted: () => NOBODY, relay: async () => undefined, prune: async () => 0 };

export interface EventRelayDeps {
  bus: ClusterBus;
  query: Query;
  /** This replica's own live events, where the relayed ones are published. */
  events: EventBus;
  /** Has this replica a client of the organization? Others' events are not even read. */
  follows(organizationId: string): boolean;
  /** Whether another replica is alive to read relayed events. */
  othersAlive(): boolean;
  /** What the other replicas' clients follow. */
  followers: Pick<FollowedOrganizations, 'followedElsewhere'>;
  logger: Logger;
}

export function createEventRelay({ bus, query, events, follows, othersAlive, followers, logger }: EventRelayDeps): EventRelay {
  /** Rows published here, with when: a row comes once, live or when catching up. */
  const handled = new Map<number, number>();
  const publish = (seq: number, body: OrganizationEvent[]) => {
    if (handled.has(seq)) return;
    handled.set(seq, Date.now());
    for (const event of body) if (follows(event.organizationId)) events.publish(event);
  };

  bus.on('events', async ({ seq, orgs }) => {
    if (handled.has(seq) || (orgs && !orgs.some(follows))) return;
    const [row] = await query<{ body: OrganizationEvent[] }>('select body from cluster_events where seq = $1', [seq]);
    if (!row) return void logger.warn({ seq }, 'relayed events were pruned before this replica read them');
    publish(seq, row.body);
  });
  bus.onResync(async () => {
    // Every other replica's row since this one started that it has not handled (rows older than
    // KEEP_SECONDS are gone; a bus outage that long loses those live events, not the results).
    const rows = await query<{ seq: string; body: OrganizationEvent[] }>(
      `select seq, body from cluster_events
        where origin <> $1 and created_at >= (select started_at from control_plane_replicas where id = $1) order by seq`,
      [bus.replicaId],
    );
    for (const row of rows) publish(Number(row.seq), row.body);
  });

  const wanted = () => (othersAlive() ? followers.followedElsewhere : NOBODY);

  return {
    wanted,
    async relay(tx, news) {
      const wants = wanted();
      const batch = news.filter((e) => wants(e.organizationId));
      if (batch.length === 0) return;
      const [row] = await queryBound<{ seq: string }>(tx, 'insert into cluster_events (origin, body) values (?, ?::json) returning seq', [bus.replicaId, JSON.stringify(batch)]);
      const orgs = [...new Set(batch.map((e) => e.organizationId))];
      await bus.publish({ k: 'events', seq: Number(row!.seq), orgs: orgs.length <= MAX_NAMED_ORGANIZATIONS ? orgs : undefined }, tx);
    },
    async prune() {
      const forgetBefore = Date.now() - 2 * KEEP_SECONDS * 1000;
      for (const [seq, at] of handled) if (at < forgetBefore) handled.delete(seq);
      const [row] = await query<{ n: number }>(
        'with gone as (delete from cluster_events where created_at < now() - make_interval(secs => $1) returning 1) select count(*)::int as n from gone',
        [KEEP_SECONDS],
      );
      return row?.n ?? 0;
    },
  };
}
