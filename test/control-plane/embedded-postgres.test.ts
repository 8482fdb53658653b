import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import pg from 'pg';
import { pino } from 'pino';
import { openDatabase } from '../../control-plane/src/db/database.js';
import { startEmbeddedPostgres } from '../../control-plane/src/db/embedded-postgres.js';
import { MIGRATIONS } from '../../control-plane/src/db/migrations/index.js';
import { holdsEveryMigration, installedPgliteVersion, readTemplate, writeTemplate } from '../../control-plane/src/db/pglite-template.js';
import { migrationModulesLoadedByAStart } from '../support/migration-modules.js';

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
          const [settings] = await query<{ shared_buffers: string; wal_buffers: string; max_connections: string }>(
            first.url,
            `select current_setting('shared_buffers') as shared_buffers, current_setting('wal_buffers') as wal_buffers, current_setting('max_connections') as max_connections`,
          );
          expect(settings).to.deep.equal({ shared_buffers: '4MB', wal_buffers: '128kB', max_connections: '10' });
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

  describe('the initialised template', () => {
    let scratch: string;
    let templateDir: string;
    before(async function () {
      this.timeout(120_000);
      scratch = mkdtempSync(path.join(os.tmpdir(), 'outpost-template-'));
      templateDir = path.join(scratch, 'template');
      await writeTemplate(templateDir);
    });
    after(() => rmSync(scratch, { recursive: true, force: true }));

    it('gives a first start a migrated database that works and keeps its data across restarts', async function () {
      this.timeout(120_000);
      const dataDir = path.join(scratch, 'data');
      const logged: { msg: string; initialisedFrom?: string }[] = [];
      const sink = new Writable({
        write(line: Buffer, _encoding, done) {
          logged.push(JSON.parse(line.toString()));
          done();
        },
      });
      const open = () => openDatabase({ url: undefined, embeddedDataDir: dataDir, embeddedTemplateDir: templateDir, poolSize: 1, logger: pino(sink) });
      const first = await open();
      try {
        const [applied] = await first.em().execute<{ n: string }[]>('select count(*) as n from mikro_orm_migrations');
        expect(Number(applied!.n)).to.equal(MIGRATIONS.length);
        await first.em().execute(`insert into users (id, email, full_name, password_hash) values ('00000000-0000-4000-8000-000000000001', 'ada@example.com', 'Ada', 'hash')`);
      } finally {
        await first.close();
      }
      const again = await open();
      try {
        expect(await again.em().execute('select email from users')).to.deep.equal([{ email: 'ada@example.com' }]);
      } finally {
        await again.close();
      }
      expect(logged.filter((l) => l.msg === 'started the embedded database').map((l) => l.initialisedFrom)).to.deep.equal(['template', 'existing']);
    });

    it('is not loaded when another PGlite version made it, and the first start runs initdb instead', async function () {
      this.timeout(120_000);
      const other = path.join(scratch, 'other-version');
      cpSync(templateDir, other, { recursive: true });
      writeFileSync(path.join(other, 'manifest.json'), JSON.stringify({ pglite: '0.0.1' }));
      const lookup = await readTemplate(other);
      expect(lookup).to.deep.equal({ found: false, reason: `the template was made by PGlite 0.0.1, this is PGlite ${await installedPgliteVersion()}` });
      const db = await startEmbeddedPostgres(path.join(scratch, 'data-initdb'), { templateDir: other });
      try {
        expect(db.initialisedFrom).to.equal('initdb');
        expect(db.templateSkipped).to.equal(lookup.found ? undefined : lookup.reason);
        expect(await query(db.url, 'select 1 as one')).to.deep.equal([{ one: 1 }]);
      } finally {
        await db.stop();
      }
    });

    it('spares a first start the migrations: it loads neither them nor the migrator', function () {
      this.timeout(120_000);
      expect(migrationModulesLoadedByAStart(`embedded:${path.join(scratch, 'data-first-start')}`, templateDir)).to.deep.equal([]);
    });

    it('holds this build\'s migrations, and is not loaded when it holds one this build does not have', async () => {
      const lookup = await readTemplate(templateDir);
      expect(lookup.found && lookup.migrations).to.deep.equal(MIGRATIONS.map((m) => m.name));
      expect(holdsEveryMigration(lookup)).to.equal(true);
      const older = path.join(scratch, 'older-build');
      cpSync(templateDir, older, { recursive: true });
      const pglite = await installedPgliteVersion();
      writeFileSync(path.join(older, 'manifest.json'), JSON.stringify({ pglite, migrations: MIGRATIONS.slice(0, 2).map((m) => m.name) }));
      const part = await readTemplate(older);
      expect(part.found && part.migrations).to.deep.equal(MIGRATIONS.slice(0, 2).map((m) => m.name));
      expect(holdsEveryMigration(part)).to.equal(false);
      writeFileSync(path.join(older, 'manifest.json'), JSON.stringify({ pglite, migrations: [MIGRATIONS[0]!.name, '0002-from-another-branch'] }));
      expect(await readTemplate(older)).to.deep.equal({ found: false, reason: 'the template holds the migration 0002-from-another-branch, which this build does not have in that place' });
    });

    it('is looked up without failing when it is missing', async () => {
      const missing = path.join(scratch, 'missing');
      expect(await readTemplate(missing)).to.deep.equal({ found: false, reason: `no template in ${missing}` });
    });
  });
});
