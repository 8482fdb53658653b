// Statements straight on a pooled pg connection, below the ORM and the query builder, for the
// hottest paths (a service read on every GET /services/{id}, creates at hundreds a second):
// their wrappers cost about 170 µs of CPU a statement, more than a simple statement itself.
// Placeholders are PostgreSQL's own ($1).
import type { Knex } from '@mikro-orm/knex';

export type Query = <T = Record<string, unknown>>(sql: string, params: unknown[]) => Promise<T[]>;

export interface PooledSql {
  query: Query;
  /** Runs `work` in one transaction on one connection: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (query: Query) => Promise<T>): Promise<T>;
}

interface PgConnection {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

export function pooledSql(knex: Knex): PooledSql {
  const { client } = knex;
  const withConnection = async <T>(work: (connection: PgConnection) => Promise<T>): Promise<T> => {
    const connection = (await client.acquireConnection()) as PgConnection;
    try {
      return await work(connection);
    } finally {
      await client.releaseConnection(connection);
    }
  };
  const on = (connection: PgConnection): Query => async <T>(sql: string, params: unknown[]) => (await connection.query(sql, params)).rows as T[];
  return {
    query: (sql, params) => withConnection((connection) => on(connection)(sql, params)),
    transaction: (work) =>
      withConnection(async (connection) => {
        await connection.query('begin');
        try {
          const result = await work(on(connection));
          await connection.query('commit');
          return result;
        } catch (err) {
          await connection.query('rollback').catch(() => undefined);
          throw err;
        }
      }),
  };
}
