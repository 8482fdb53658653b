// The embedded database: PGlite (PostgreSQL compiled to WebAssembly) served on a loopback
// socket, so the ordinary driver, MikroORM and the same migrations work unchanged.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/** Starts PGlite persisted under `dataDir` (or in memory when dataDir is null). */
export async function startEmbeddedPostgres(dataDir: string | null): Promise<EmbeddedPostgres> {
  let db: PGlite;
  if (dataDir) {
    const dir = path.resolve(dataDir, 'pgdata');
    mkdirSync(dir, { recursive: true });
    db = await PGlite.create(dir);
  } else {
    db = await PGlite.create();
  }
  // PGlite runs one session; the socket server multiplexes the few clients (the control
  // plane's single pooled connection, tests) onto it.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 8 });
  await server.start();
  const url = `postgres://postgres@${server.getServerConn()}/postgres`;
  return {
    url,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
