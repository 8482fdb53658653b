// Statements straight on a pooled pg connection, below the ORM and the query builder, for the
// hottest paths (a service read on every GET /services/{id}, creates at hundreds a second):
// their wrappers cost about 170 µs of CPU a statement, more than a simple statement itself.
// Placeholders are PostgreSQL's own ($1).
import { randomUUID } from 'node:crypto';
import type { Knex } from '@mikro-orm/knex';

export type Query = <T = Record<string, unknown>>(sql: string, params: unknown[]) => Promise<T[]>;

export interface PooledSql {
  query: Query;
  /**
   * A statement prepared once on each connection and executed by name after that: PostgreSQL
   * parses and plans it once per connection instead of once per call. For the hottest reads.
   * `key` is a short identifier; with the connection's id it must fit PostgreSQL's 63 bytes.
   */
  prepared<T = Record<string, unknown>>(key: string, sql: string): (params: unknown[]) => Promise<T[]>;
  /** Runs `work` in one transaction on one connection: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (query: Query) => Promise<T>): Promise<T>;
}

interface PgConnection {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  query(statement: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Statement names carry an id of their connection: the embedded database serves every
 * connection from one session, where a name prepared by an earlier connection (of this pool,
 * or of another control plane on the same database) still exists, and preparing it again fails.
 */
const connectionIds = new WeakMap<PgConnection, string>();

function statementName(connection: PgConnection, key: string): string {
  let id = connectionIds.get(connection);
  if (!id) {
    id = randomUUID().replaceAll('-', '');
    connectionIds.set(connection, id);
  }
  return `${key}_${id}`;
}

export interface PooledSqlOptions {
  /**
   * False on the embedded database this process started: its connections all share one
   * session, where each statement a connection prepared would outlive the connection, and the
   * pool opens a new connection after every idle spell.
   */
  prepare: boolean;
}

export function pooledSql(knex: Knex, { prepare }: PooledSqlOptions = { prepare: true }): PooledSql {
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
    prepared: <T>(key: string, text: string) => (params: unknown[]) =>
      withConnection(async (connection) =>
        prepare ? ((await connection.query({ name: statementName(connection, key), text, values: params })).rows as T[]) : on(connection)<T>(text, params),
      ),
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
