// What `npm run admin -- backup | restore | migrate-database` do, on the host of the control
// plane. A running control plane on the embedded database holds its data folder: a backup then
// asks it for the snapshot; a restore or a move refuses until it is stopped.
import { createWriteStream, existsSync, renameSync, rmSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import pg from 'pg';
import { AGENT_VERSION as OUTPOST_VERSION } from '../../../../agent/src/version.js';
import type { Config } from '../../config.js';
import { keyringFromKeys, keysInFile, prependKeysToFile } from '../../crypto/keyring.js';
import { createSecretBox } from '../../crypto/secret-box.js';
import { openDatabase } from '../../db/database.js';
import { compareMigrations, MIGRATIONS } from '../../db/migrations/index.js';
import { createLogger } from '../../logger.js';
import { replaceKeptSecrets, resolveSecrets } from '../../secrets.js';
import { readAppliedMigrations } from '../doctor/migrations.js';
import { countUnreadableSecrets } from '../secrets/reseal-secrets.js';
import { createSealedValuesRepository } from '../secrets/sealed-values.repository.js';
import { issueAdminToken } from './admin-token.js';
import { ArchiveError, type TableSummary } from './archive-format.js';
import { openKeys, sealKeys, type BackupKeys } from './backup-keys.js';
import { checkEmpty, checkNotRunning, checkSchema, inspectArchive, loadArchive } from './restore-backup.js';
import { findRunningControlPlane } from './running-marker.js';
import { writeBackup } from './write-backup.js';

/** A refusal the operator can act on; the admin CLI prints its message without a stack. */
export class AdminRefusal extends Error {}

export interface BackupFileOptions {
  out: string;
  historyDays?: number;
  /** Seal the keys into the archive with this passphrase. */
  passphrase?: string;
}

export interface BackupFileReport {
  file: string;
  /** `running control plane` or `database`: who took the snapshot. */
  takenBy: string;
  tables: Record<string, TableSummary>;
  keys: boolean;
}

const connect = async (url: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
};

/** Runs `work` on the stopped embedded database of DATA_DIR, started here for the while. */
async function withStoppedEmbedded<T>(dataDir: string, work: (url: string) => Promise<T>): Promise<T> {
  if (findRunningControlPlane(dataDir)) throw new AdminRefusal(`a control plane is running on ${dataDir}: stop it first`);
  if (!existsSync(path.join(dataDir, 'pgdata', 'PG_VERSION'))) throw new AdminRefusal(`there is no embedded database in ${path.join(dataDir, 'pgdata')}`);
  const { startEmbeddedPostgres } = await import('../../db/embedded-postgres.js');
  const embedded = await startEmbeddedPostgres(dataDir);
  try {
    return await work(embedded.url);
  } finally {
    await embedded.stop();
  }
}

async function snapshotTo(url: string, file: string, options: { historyDays?: number; keys?: ReturnType<typeof sealKeys>; source: 'embedded' | 'postgresql' }) {
  const client = await connect(url);
  try {
    return await writeBackup(client, createWriteStream(file, { mode: 0o600 }), { version: OUTPOST_VERSION, ...options });
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Writes a backup of the installation `config` describes to `options.out`. */
export async function backupToFile(config: Config, options: BackupFileOptions): Promise<BackupFileReport> {
  const secrets = resolveSecrets(config.dataDir, { jwtSecret: config.jwtSecret, agentToken: config.agentToken, dataKeys: config.dataEncryptionKeys });
  const keys = options.passphrase === undefined ? undefined : sealKeys({ dataKeys: keyringKeys(config), jwtSecret: secrets.jwtSecret, agentToken: secrets.agentToken }, options.passphrase);
  // Written aside and renamed once checked: a file under the asked name is a whole backup.
  const partial = `${options.out}.partial`;
  let takenBy = 'database';
  try {
    const running = config.databaseUrl ? undefined : findRunningControlPlane(config.dataDir);
    if (running) {
      takenBy = `the running control plane (${running.url})`;
      const answer = await fetch(`${running.url}/api/v1/backup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-outpost-admin': issueAdminToken(secrets.jwtSecret) },
        body: JSON.stringify({ ...(options.historyDays ? { history_days: options.historyDays } : {}), ...(keys ? { keys } : {}) }),
      });
      if (!answer.ok || !answer.body) throw new AdminRefusal(`the running control plane refused the backup: ${answer.status} ${await answer.text()}`);
      await pipeline(Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream), createWriteStream(partial, { mode: 0o600 }));
    } else if (config.databaseUrl) {
      await snapshotTo(config.databaseUrl, partial, { historyDays: options.historyDays, keys, source: 'postgresql' });
    } else {
      await withStoppedEmbedded(config.dataDir, (url) => snapshotTo(url, partial, { historyDays: options.historyDays, keys, source: 'embedded' }));
    }
    const facts = await inspectArchive(partial);
    renameSync(partial, options.out);
    return { file: options.out, takenBy, tables: facts.tables, keys: facts.keys !== undefined };
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
}

/** Every data key, the one that seals first: configured, or DATA_DIR's file. */
const keyringKeys = (config: Config) => config.dataEncryptionKeys ?? keysInFile(config.dataDir);

export interface RestoreReport {
  /** Rows per table, as loaded and as counted afterwards in the target. */
  tables: Record<string, { archived: number; restored: number }>;
  /** What happened to the keys: installed from the archive, or those already there used. */
  keys: 'from the backup' | 'already configured';
  secrets: { sealed: number; unreadable: number };
  /** Migrations applied after the rows were loaded (the backup was older than this version). */
  upgradedWith: string[];
  warnings: string[];
}

export interface RestoreOptions {
  from: string;
  /** Opens the archive's keys; required when it has them. */
  passphrase?: string;
  /** Restore into this PostgreSQL database instead of the configured one (migrate-database). */
  targetUrl?: string;
}

/** Restores an archive into the empty database of `config` (or `targetUrl`). */
export async function restoreFromFile(config: Config, options: RestoreOptions): Promise<RestoreReport> {
  const facts = await inspectArchive(options.from);
  checkSchema(facts.header, MIGRATIONS.map((m) => m.name));
  if (facts.keys && options.passphrase === undefined) throw new AdminRefusal('this backup holds its keys sealed with a passphrase: give it with --passphrase-file');
  const opened = facts.keys ? openKeys(facts.keys, options.passphrase!) : undefined;
  const targetUrl = options.targetUrl ?? config.databaseUrl;
  const restore = (url: string | undefined) => restoreInto(config, url, options.from, facts, opened);
  const result = targetUrl ? await restore(targetUrl) : await withEmptyEmbedded(config.dataDir, () => restore(undefined));
  // Only once the rows are in: a refused restore must leave DATA_DIR's keys as they were.
  const warnings = opened ? installKeys(config, opened) : [];
  return { ...result, keys: opened ? 'from the backup' : 'already configured', warnings };
}

/** The embedded database of DATA_DIR may be new or made by a first start, but no control plane may run on it. */
async function withEmptyEmbedded<T>(dataDir: string, work: () => Promise<T>): Promise<T> {
  if (findRunningControlPlane(dataDir)) throw new AdminRefusal(`a control plane is running on ${dataDir}: stop it first`);
  return work();
}

/** Writes the archive's keys into DATA_DIR, or says where configured ones differ from them. */
function installKeys(config: Config, keys: BackupKeys): string[] {
  const warnings: string[] = [];
  if (config.dataEncryptionKeys) {
    const missing = keys.dataKeys.filter((k) => !config.dataEncryptionKeys!.some((c) => c.id === k.id));
    if (missing.length > 0) warnings.push(`DATA_ENCRYPTION_KEYS lacks the backup's key(s) ${missing.map((k) => k.id).join(', ')}: add them, or its stored secrets stay sealed`);
  } else {
    prependKeysToFile(config.dataDir, keys.dataKeys);
  }
  if (config.jwtSecret && config.jwtSecret !== keys.jwtSecret) warnings.push('JWT_SECRET differs from the backup\'s: people sign in again');
  if (config.agentToken && config.agentToken !== keys.agentToken) warnings.push('AGENT_TOKEN differs from the backup\'s: agents holding the platform token need the new one');
  if (!config.jwtSecret || !config.agentToken) {
    const current = resolveSecrets(config.dataDir, {});
    replaceKeptSecrets(config.dataDir, { jwtSecret: config.jwtSecret ? current.jwtSecret : keys.jwtSecret, agentToken: config.agentToken ? current.agentToken : keys.agentToken });
  }
  return warnings;
}

async function restoreInto(config: Config, url: string | undefined, file: string, facts: Awaited<ReturnType<typeof inspectArchive>>, opened: BackupKeys | undefined): Promise<Omit<RestoreReport, 'keys' | 'warnings'>> {
  const archived = facts.header.migrations;
  const logger = createLogger('error');
  const probe = url ? await connect(url) : undefined;
  if (probe) {
    try {
      await checkNotRunning(probe);
      await refuseNewerTarget(probe, archived);
    } finally {
      await probe.end().catch(() => undefined);
    }
  }
  // The schema the archive was taken at; what came after runs once its rows are in.
  // A new embedded database starts from the build's template, which holds every migration of
  // this version: a backup of an older schema needs one made by initdb instead.
  const current = archived.length === MIGRATIONS.length;
  const db = await openDatabase({ url, embeddedDataDir: config.dataDir, poolSize: 1, logger, migrateUpTo: archived.at(-1), ...(current ? {} : { embeddedTemplateDir: null }) });
  let client: pg.Client | undefined;
  try {
    client = await connect(db.url);
    if (!probe) await refuseNewerTarget(client, archived);
    await checkEmpty(client, Object.keys(facts.tables));
    const loaded = await loadArchive(client, file);
    const pendingBefore = compareMigrations(archived).pending;
    await db.migrate();
    const tables: RestoreReport['tables'] = {};
    for (const [table, summary] of Object.entries(facts.tables)) {
      if (loaded[table] !== summary.rows) throw new ArchiveError(`${table}: ${loaded[table] ?? 0} rows loaded of ${summary.rows}`);
      const { rows } = await client.query<{ n: string }>(`select count(*) as n from "${table}"`);
      tables[table] = { archived: summary.rows, restored: Number(rows[0]!.n) };
    }
    const counted = await countUnreadableSecrets(createSealedValuesRepository(db.em), secretBoxAfterRestore(config, opened));
    return { tables, secrets: counted, upgradedWith: pendingBefore };
  } finally {
    await client?.end().catch(() => undefined);
    await db.close();
  }
}

/** The keys the installation will have: the backup's (installed once the rows are in) before those already there. */
function secretBoxAfterRestore(config: Config, opened: BackupKeys | undefined) {
  if (opened) return createSecretBox(keyringFromKeys([...opened.dataKeys, ...keyringKeys(config)]), opened.jwtSecret);
  const secrets = resolveSecrets(config.dataDir, { jwtSecret: config.jwtSecret, agentToken: config.agentToken, dataKeys: config.dataEncryptionKeys });
  return createSecretBox(secrets.dataKeys, secrets.jwtSecret);
}

/** A target already migrated past the archive (a newer version started on it) cannot take it. */
async function refuseNewerTarget(client: pg.Client, archived: string[]): Promise<void> {
  const applied = await readAppliedMigrations(async (text, params) => (await client.query(text, params)).rows);
  const ahead = compareMigrations(applied, archived).unknown;
  if (ahead.length > 0) {
    throw new AdminRefusal(`the target database is at a newer schema than the backup (${ahead.join(', ')}): restore into a database no newer control plane has started on (a new PostgreSQL database, or an empty DATA_DIR)`);
  }
}

export interface MigrateReport {
  /** The backup the move went through, kept in DATA_DIR as the way back. */
  archive: string;
  restore: RestoreReport;
}

/** Copies the stopped embedded installation of DATA_DIR (or a backup of one) into the empty PostgreSQL database at `to`. */
export async function migrateToPostgres(config: Config, options: { to: string; from?: string; passphrase?: string }): Promise<MigrateReport> {
  if (!/^postgres(ql)?:\/\//.test(options.to)) throw new AdminRefusal('--to must be a postgres:// URL');
  const embedded = { ...config, databaseUrl: undefined };
  let archive = options.from;
  if (!archive) {
    if (findRunningControlPlane(config.dataDir)) throw new AdminRefusal(`a control plane is running on ${config.dataDir}: stop it first, so that nothing arrives after the copy`);
    archive = path.join(config.dataDir, `embedded-to-postgresql-${new Date().toISOString().slice(0, 19).replaceAll(':', '')}.ndjson.gz`);
    await backupToFile(embedded, { out: archive });
  }
  return { archive, restore: await restoreFromFile(embedded, { from: archive, passphrase: options.passphrase, targetUrl: options.to }) };
}
