// The floor of bench/idle.ts: a bare Koa server holding one idle connection to the same kind of
// database as the control plane, doing nothing else. `embedded` starts PGlite in this process,
// as the control plane does (same settings, a fresh data folder from the build's template);
// a postgres:// URL connects to that server with pg. What a Node server with a database costs
// at rest, at best. Prints {"http": port} once ready; runs until SIGTERM.
//
//   node --import tsx bench/reference/idle-koa.ts embedded|postgres://...
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Koa from 'koa';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../control-plane/src/db/embedded-postgres.js';

const target = process.argv[2];
if (!target) throw new Error('usage: idle-koa.ts embedded|postgres://...');
const dataDir = target === 'embedded' ? mkdtempSync(path.join(os.tmpdir(), 'outpost-idle-floor-')) : undefined;
const embedded = dataDir ? await startEmbeddedPostgres(dataDir) : undefined;
const client = new pg.Client({ connectionString: embedded?.url ?? target });
await client.connect();
await client.query('select 1');

const app = new Koa();
app.use(async (ctx) => {
  ctx.body = (await client.query('select 1 as one')).rows[0];
});
const server = http.createServer(app.callback());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
console.log(JSON.stringify({ http: (server.address() as AddressInfo).port }));

process.once('SIGTERM', () => {
  server.close();
  void client
    .end()
    .then(() => embedded?.stop())
    .finally(() => {
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
});
