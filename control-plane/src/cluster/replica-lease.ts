// This replica's lease among the control-plane replicas (migration 0014). While it is renewed,
// the agent streams this replica holds count as online; when the replica dies, they stop
// counting once the lease runs out, and the other replicas move those agents' services. The
// leases also tell a replica whether it is alone: then no other replica's WebSocket clients
// can want its live events, and it need not store them for relaying (event-relay.ts).
import type { Query } from '../db/pooled-sql.js';

/** Renewed every third of its length, so two missed renewals are survived. */
export const LEASE_SECONDS = 6;
/**
 * On the embedded database, which no other process can open, nobody waits for this replica's
 * lease to run out: it is long, so that keeping it costs a statement every ten minutes instead
 * of one every two seconds, and a restart clears what a crash left (see `sole`).
 */
export const SOLE_LEASE_SECONDS = 1_800;
/** Rows of replicas dead this long are deleted (their sessions with them). */
const FORGET_AFTER_SECONDS = 60;

export interface LeaseOptions {
  seconds: number;
  /** No other replica can share the database: the leases of earlier runs are dead, and go at join. */
  sole: boolean;
}

export interface ReplicaLease {
  /** How often renew() must run to keep the lease. */
  readonly renewEveryMs: number;
  /** Takes the lease and announces this replica, so that the others relay their live events to it at once. */
  join(): Promise<void>;
  renew(): Promise<void>;
  /** A clean stop: this replica's agents stop counting at once. */
  retire(): Promise<void>;
  /** Deletes replicas long dead; answers how many. */
  forgetDead(): Promise<number>;
  /** The ids of the other replicas holding a live lease. */
  peers(): Promise<string[]>;
  /** Another replica holds a live lease, or announced itself within a lease's length. */
  othersAlive(): boolean;
  /** Another replica announced itself (it may have started after the last renewal). */
  otherJoined(): void;
}

export function createReplicaLease(query: Query, replicaId: string, announce: () => Promise<void>, options: LeaseOptions = { seconds: LEASE_SECONDS, sole: false }): ReplicaLease {
  // Until the first renewal says otherwise, others are assumed: relaying needlessly is harmless.
  let others = 1;
  let joinedAt = 0;
  const renew = async () => {
    const [row] = await query<{ others: number }>(
      `with mine as (
         insert into control_plane_replicas (id, expires_at) values ($1, now() + make_interval(secs => $2))
         on conflict (id) do update set expires_at = excluded.expires_at
       )
       select count(*)::int as others from control_plane_replicas where id <> $1 and expires_at > now()`,
      [replicaId, options.seconds],
    );
    others = row?.others ?? 0;
  };
  return {
    renewEveryMs: (options.seconds * 1000) / 3,
    async join() {
      if (options.sole) await query('delete from control_plane_replicas where id <> $1', [replicaId]);
      await renew();
      await announce();
    },
    renew,
    async peers() {
      const rows = await query<{ id: string }>('select id from control_plane_replicas where id <> $1 and expires_at > now()', [replicaId]);
      return rows.map((row) => row.id);
    },
    othersAlive() {
      return others > 0 || Date.now() - joinedAt < LEASE_SECONDS * 1000;
    },
    otherJoined() {
      joinedAt = Date.now();
    },
    async retire() {
      await query('delete from control_plane_replicas where id = $1', [replicaId]);
    },
    async forgetDead() {
      const rows = await query(`delete from control_plane_replicas where expires_at < now() - make_interval(secs => $1) returning id`, [FORGET_AFTER_SECONDS]);
      return rows.length;
    },
  };
}
