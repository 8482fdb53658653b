import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../control-plane/src/db/embedded-postgres.js';

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('embedded database', () => {
  describe('startEmbeddedPostgres', () => {
    it('runs with buffers sized for one small installation and keeps its data across restarts', async function () {
      this.timeout(120_000);
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'outpost-embedded-'));
      try {
        const first = await startEmbeddedPostgres(dataDir);
        try {
          const [settings] = await query<{ shared_buffers: string; max_connections: string }>(
            first.url,
            `select current_setting('shared_buffers') as shared_buffers, current_setting('max_connections') as max_connections`,
          );
          expect(settings).to.deep.equal({ shared_buffers: '16MB', max_connections: '10' });
          await query(first.url, 'create table kept (n int); insert into kept values (42)');
        } finally {
          await first.stop();
        }
        const again = await startEmbeddedPostgres(dataDir);
        try {
          expect(await query(again.url, 'select n from kept')).to.deep.equal([{ n: 42 }]);
        } finally {
          await again.stop();
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
});
