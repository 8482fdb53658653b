// MikroORM's PostgreSQL driver with real bind parameters. MikroORM 6 pastes every parameter
// into the SQL text before it reaches the server (Platform.formatQuery), so user values
// travel inside statements: a NUL or a stray byte in a value becomes an error that quotes the
// whole statement, values included, and every query pays for the string work. Here every
// statement, the ORM's own and the repositories', goes to PostgreSQL with `$n` placeholders
// and its values apart, the way the pg driver is meant to be used.
import { AbstractSqlDriver, type Knex } from '@mikro-orm/knex';
import { PostgreSqlConnection, PostgreSqlPlatform, type Configuration } from '@mikro-orm/postgresql';
import { Utils } from '@mikro-orm/core';

class BoundPostgreSqlConnection extends PostgreSqlConnection {
  override async execute<T>(
    queryOrKnex: string | Knex.QueryBuilder | Knex.Raw,
    params: unknown[] = [],
    method: 'all' | 'get' | 'run' = 'all',
    ctx?: Knex.Transaction,
    loggerContext?: Record<string, unknown>,
  ): Promise<T> {
    await this.ensureConnection();
    let sql: string;
    if (Utils.isObject<Knex.QueryBuilder | Knex.Raw>(queryOrKnex)) {
      ctx ??= (queryOrKnex as unknown as { client: { transacting?: boolean } }).client.transacting ? (queryOrKnex as unknown as Knex.Transaction) : undefined;
      const compiled = queryOrKnex.toSQL();
      sql = compiled.sql;
      params = [...(compiled.bindings ?? [])];
    } else {
      sql = queryOrKnex;
    }
    // Without parameters the text goes through untouched, so a `?` inside it stays as written.
    const bindings = params.length > 0 ? (params as Knex.RawBinding[]) : undefined;
    return this.executeQuery(
      sql,
      async () => {
        const query = bindings ? this.getKnex().raw(sql, bindings) : this.getKnex().raw(sql);
        if (ctx) query.transacting(ctx);
        return this.transformRawResult<T>(await query, method);
      },
      { query: sql, params, ...loggerContext },
    );
  }
}

export class BoundPostgreSqlDriver extends AbstractSqlDriver<BoundPostgreSqlConnection> {
  constructor(config: Configuration) {
    super(config, new PostgreSqlPlatform(), BoundPostgreSqlConnection, ['knex', 'pg']);
  }
}
