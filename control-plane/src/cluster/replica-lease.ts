// This replica's lease among the control-plane replicas (migration 0014). While it is renewed,
// the agent streams this replica holds count as online; when the replica dies, they stop
// counting once the lease runs out, and the other replicas move those agents' services.
import type { Query } from '../db/pooled-sql.js';

/** Renewed every LEASE_SECONDS / 3, so two missed renewals are survived. */
export const LEASE_SECONDS = 6;
/** Rows of replicas dead this long are deleted (their sessions with them). */
const FORGET_AFTER_SECONDS = 60;

export interface ReplicaLease {
  renew(): Promise<void>;
  /** A clean stop: this replica's agents stop counting at once. */
  retire(): Promise<void>;
  /** Deletes replicas long dead; answers how many. */
  forgetDead(): Promise<number>;
}

export function createReplicaLease(query: Query, replicaId: string): ReplicaLease {
  return {
    async renew() {
      await query(
        `insert into control_plane_replicas (id, expires_at) values ($1, now() + make_interval(secs => $2))
         on conflict (id) do update set expires_at = excluded.expires_at`,
        [replicaId, LEASE_SECONDS],
      );
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
