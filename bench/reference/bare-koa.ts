// The reference of P5: a bare Koa server answering GET /services/:id with one indexed SELECT
// through a pg pool, no authentication, no middleware. What the API could serve at best.
// Run as a process of its own (as the product is), so neither slows the other with its timers
// or garbage; prints {"url": …} once listening and runs until SIGTERM:
//
//   node --import tsx bench/reference/bare-koa.ts DATABASE_URL POOL_SIZE
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import pg from 'pg';

export interface BareKoa {
  url: string;
  stop(): Promise<void>;
}

export async function startBareKoa(databaseUrl: string, poolSize: number): Promise<BareKoa> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  const app = new Koa();
  app.use(async (ctx) => {
    const match = /^\/services\/([0-9a-f-]{36})$/.exec(ctx.path);
    if (!match) {
      ctx.status = 404;
      return;
    }
    const { rows } = await pool.query('select * from services where id = $1', [match[1]]);
    if (!rows[0]) ctx.status = 404;
    else ctx.body = rows[0];
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const bare = await startBareKoa(process.argv[2]!, Number(process.argv[3]));
  console.log(JSON.stringify({ url: bare.url }));
  process.once('SIGTERM', () => void bare.stop().then(() => process.exit(0)));
}
