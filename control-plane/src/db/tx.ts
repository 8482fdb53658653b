import type { EntityManager } from '@mikro-orm/postgresql';
import type { Knex } from '@mikro-orm/knex';

/**
 * An open transaction, handed through services to the repositories that must write in it
 * (ingest writes results, statuses, alerts and the outbox atomically). Services only pass
 * it on; only repositories use it.
 */
export type Tx = EntityManager;

/**
 * Runs one statement in the transaction with bound parameters straight on its connection,
 * for the ingest statements (a whole batch as one JSON parameter): it skips the ORM's
 * per-query wrapper, on the hottest path of the control plane.
 */
export async function queryBound<T>(tx: Tx, sql: string, params: unknown[]): Promise<T[]> {
  const trx = tx.getTransactionContext<Knex.Transaction>();
  if (!trx) throw new Error('queryBound needs an open transaction');
  const result = (await trx.raw(sql, params as Knex.RawBinding[])) as { rows: T[] };
  return result.rows;
}
