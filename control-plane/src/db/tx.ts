import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * An open transaction, handed through services to the repositories that must write in it
 * (ingest writes results, statuses, alerts and the outbox atomically). Services only pass
 * it on; only repositories use it.
 */
export type Tx = EntityManager;
