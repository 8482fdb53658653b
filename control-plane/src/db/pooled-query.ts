// One statement straight on a pooled pg connection, below the ORM and the query builder, for
// the hottest reads (a service on every GET /services/{id}): their wrappers cost about 170 µs
// of CPU a statement, more than the statement itself. Placeholders are PostgreSQL's own ($1).
import type { Knex } from '@mikro-orm/knex';

export type PooledQuery = <T = Record<string, unknown>>(sql: string, params: unknown[]) => Promise<T[]>;

interface PgConnection {
  query(sql: string, params: unknown[]): Promise<{ rows: unknown[] }>;
}

export function pooledQuery(knex: Knex): PooledQuery {
  const { client } = knex;
  return async <T>(sql: string, params: unknown[]) => {
    const connection = (await client.acquireConnection()) as PgConnection;
    try {
      return (await connection.query(sql, params)).rows as T[];
    } finally {
      await client.releaseConnection(connection);
    }
  };
}
