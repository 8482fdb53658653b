// Operator commands run on the control plane's host, against its database and DATA_DIR:
//   npm run admin -- set-plan ORG_SLUG PLAN
//   npm run admin -- reseal-secrets        stored secrets onto the current data key
//   npm run admin -- rotate-data-key       a new data key (DATA_DIR keyring), then reseal
//   npm run admin -- rotate-jwt-secret     a new JWT secret (DATA_DIR); every token is refused after a restart
//   npm run admin -- doctor [--json]       checks the installation, one line per check with its fix; exit 1 when one fails
//   npm run admin -- backup --out FILE [--history-days N] [--include-keys --passphrase-file FILE]
//   npm run admin -- restore --from FILE [--passphrase-file FILE]     into an empty database
//   npm run admin -- migrate-database --to postgres://... [--from FILE]  the stopped embedded database onto PostgreSQL
import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, type Config } from './config.js';
import { addKeyToFile, keyringFromKeys, newDataKey } from './crypto/keyring.js';
import { createSecretBox, type SecretBox } from './crypto/secret-box.js';
import { openDatabase, type Database } from './db/database.js';
import { AdminRefusal, backupToFile, migrateToPostgres, restoreFromFile, type RestoreReport } from './features/backup/admin-backup.js';
import { ArchiveError } from './features/backup/archive-format.js';
import { KeysError } from './features/backup/backup-keys.js';
import { formatResult, runDoctor } from './features/doctor/index.js';
import { isPlan, PLANS } from './features/organizations/plans.js';
import { resealSecrets, type ResealReport } from './features/secrets/reseal-secrets.js';
import { createSealedValuesRepository } from './features/secrets/sealed-values.repository.js';
import { createLogger } from './logger.js';
import { replaceKeptJwtSecret, resolveSecrets } from './secrets.js';

/** A refusal the operator can fix: printed without a stack, exit code 1 (2 for usage). */
class RefusedError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

const print = (line: string) => process.stdout.write(`${line}\n`);

async function withDatabase<T>(config: Config, work: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase({ url: config.databaseUrl, embeddedDataDir: config.dataDir, poolSize: 1, logger: createLogger('warn') });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

async function reseal(config: Config, box: SecretBox, options: { onlyLegacy?: boolean } = {}): Promise<ResealReport> {
  const report = await withDatabase(config, (db) => resealSecrets(createSealedValuesRepository(db.em), box, options));
  print(`re-sealed ${report.resealed} stored secret(s)${report.skipped ? `; ${report.skipped} changed meanwhile (run again)` : ''}`);
  if (report.unreadable > 0) throw new RefusedError(`${report.unreadable} stored secret(s) open with no key of the keyring; restore the missing key from the backup of the keys`);
  return report;
}

function program(config: Config): Command {
  const secrets = () => resolveSecrets(config.dataDir, { jwtSecret: config.jwtSecret, agentToken: config.agentToken, dataKeys: config.dataEncryptionKeys });
  const cli = new Command('admin').exitOverride().showHelpAfterError();

  cli
    .command('set-plan')
    .argument('<org-slug>')
    .argument('<plan>', `one of ${Object.keys(PLANS).join(', ')}`)
    .description("change an organization's plan")
    .action(async (slug: string, plan: string) => {
      if (!isPlan(plan)) throw new RefusedError(`unknown plan "${plan}" (plans: ${Object.keys(PLANS).join(', ')})`, 2);
      const rows = await withDatabase(config, (db) => db.em().execute<{ id: string }[]>('update organizations set plan = ?, updated_at = now() where slug = ? returning id', [plan, slug]));
      if (rows.length === 0) throw new RefusedError(`no organization with the slug "${slug}"`);
      print(`organization ${slug} is now on the ${plan} plan`);
    });

  cli
    .command('reseal-secrets')
    .description('seal every stored secret under the current data key, so older keys are no longer needed')
    .action(async () => {
      const { dataKeys, jwtSecret } = secrets();
      await reseal(config, createSecretBox(dataKeys, jwtSecret));
      print(`every stored secret is sealed under the data key "${dataKeys.current().id}"`);
    });

  cli
    .command('rotate-data-key')
    .description('add a new data key to DATA_DIR/data-keys, seal every stored secret under it, keep the old keys for older backups')
    .action(async () => {
      if (config.dataEncryptionKeys) {
        throw new RefusedError(
          'the data keys come from DATA_ENCRYPTION_KEYS: add a new ID:KEY at its end on every control plane and restart them, ' +
            'move it first and restart them again, then run reseal-secrets; drop the old key once no backup needs it',
        );
      }
      const { jwtSecret } = secrets();
      const keys = addKeyToFile(config.dataDir, newDataKey());
      await reseal(config, createSecretBox(keyringFromKeys(keys), jwtSecret));
      print(`the data key "${keys[0]!.id}" now seals; ${keys.slice(1).map((k) => `"${k.id}"`).join(', ')} kept in ${config.dataDir}/data-keys to open older backups`);
    });

  cli
    .command('rotate-jwt-secret')
    .description('replace the JWT secret in DATA_DIR: after a restart every token issued so far is refused')
    .action(async () => {
      const { dataKeys, jwtSecret } = secrets();
      // Secrets of the first format are sealed under the JWT secret: move them off it first.
      await reseal(config, createSecretBox(dataKeys, jwtSecret), { onlyLegacy: true });
      if (config.jwtSecret) throw new RefusedError('JWT_SECRET comes from the environment: set a new value there (at least 32 characters) and restart every control plane');
      replaceKeptJwtSecret(config.dataDir);
      print(`a new JWT secret is in ${config.dataDir}/jwt-secret; restart every control plane: tokens issued so far are refused, people sign in again`);
    });

  cli
    .command('doctor')
    .option('--json', 'print one JSON object {checks: [{name, status, message, fix?}]}')
    .description('check the database, migrations, disk, clocks, TLS files, SMTP and the results table; exit 1 when a check fails')
    .action(async (options: { json?: boolean }) => {
      const checks = await runDoctor(config);
      print(options.json ? JSON.stringify({ checks }) : checks.map(formatResult).join('\n'));
      const failed = checks.filter((c) => c.status === 'fail').length;
      if (failed > 0) throw new RefusedError(`${failed} check(s) failed`);
    });

  cli
    .command('backup')
    .requiredOption('--out <file>', 'where to write the archive (.ndjson.gz)')
    .option('--history-days <n>', 'leave out check results older than this many days', positiveInteger)
    .option('--include-keys', 'add the data keys, JWT secret and agent token, sealed with the passphrase of --passphrase-file')
    .option('--passphrase-file <file>', 'a file holding the passphrase ("-": standard input)')
    .description('write one archive of every table (a consistent snapshot, also while the control plane runs)')
    .action(async (options: { out: string; historyDays?: number; includeKeys?: boolean; passphraseFile?: string }) => {
      if (options.includeKeys && !options.passphraseFile) throw new RefusedError('--include-keys needs --passphrase-file: the keys are sealed with that passphrase', 2);
      const report = await backupToFile(config, { out: options.out, historyDays: options.historyDays, passphrase: options.includeKeys ? readPassphrase(options.passphraseFile!) : undefined });
      const rows = Object.values(report.tables).reduce((n, t) => n + t.rows, 0);
      print(`wrote ${report.file}: ${Object.keys(report.tables).length} tables, ${rows} rows${report.keys ? ', the keys sealed with the passphrase' : ' (no keys: keep DATA_DIR\'s data-keys, jwt-secret and agent-token, or DATA_ENCRYPTION_KEYS, apart)'}; taken by ${report.takenBy}`);
    });

  cli
    .command('restore')
    .requiredOption('--from <file>', 'an archive written by backup')
    .option('--passphrase-file <file>', "opens the archive's keys (\"-\": standard input)")
    .description('load a backup into an empty database (DATABASE_URL, or the embedded one of DATA_DIR), then bring it up to this version')
    .action(async (options: { from: string; passphraseFile?: string }) => {
      const report = await restoreFromFile(config, { from: options.from, passphrase: options.passphraseFile ? readPassphrase(options.passphraseFile) : undefined });
      printRestore(report);
      print(`restored into ${config.databaseUrl ? 'DATABASE_URL' : `the embedded database of ${config.dataDir}`}; start the control plane`);
    });

  cli
    .command('migrate-database')
    .requiredOption('--to <url>', 'an empty PostgreSQL database: postgres://user:password@host:5432/outpost')
    .option('--from <file>', 'a backup to copy instead of the stopped embedded database of DATA_DIR')
    .option('--passphrase-file <file>', "opens the backup's keys")
    .description('copy the stopped embedded installation onto PostgreSQL, verify the counts, and say what to set')
    .action(async (options: { to: string; from?: string; passphraseFile?: string }) => {
      const { archive, restore } = await migrateToPostgres(config, { to: options.to, from: options.from, passphrase: options.passphraseFile ? readPassphrase(options.passphraseFile) : undefined });
      printRestore(restore);
      print(`copied through ${archive} (keep it until the new database has run a while)`);
      print(`now start the control plane with DATABASE_URL=${redactPassword(options.to)} and the same DATA_DIR (${config.dataDir}): it holds the keys and the agent token, so agents keep theirs and replay what they kept meanwhile`);
    });

  return cli;
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number of days, at least 1');
  return n;
}

function readPassphrase(file: string): string {
  const text = readFileSync(file === '-' ? 0 : file, 'utf8').replace(/\r?\n$/, '');
  if (!text) throw new RefusedError(`the passphrase file ${file} is empty`, 2);
  return text;
}

const redactPassword = (url: string) => url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');

function printRestore(report: RestoreReport): void {
  const entries = Object.entries(report.tables);
  const width = Math.max(...entries.map(([t]) => t.length));
  for (const [table, { archived, restored }] of entries) print(`  ${table.padEnd(width)}  ${String(restored).padStart(9)}${restored === archived ? '' : ` (backup: ${archived})`}`);
  const rows = entries.reduce((n, [, t]) => n + t.restored, 0);
  print(`${entries.length} tables, ${rows} rows; keys ${report.keys}`);
  if (report.upgradedWith.length > 0) print(`then migrated from the backup's schema with ${report.upgradedWith.join(', ')}`);
  for (const warning of report.warnings) print(`warning: ${warning}`);
  if (report.secrets.unreadable > 0) {
    throw new RefusedError(`${report.secrets.unreadable} of ${report.secrets.sealed} stored secret(s) open with no key given: set DATA_ENCRYPTION_KEYS (or DATA_DIR/data-keys) to the installation's keys, or restore a backup made with --include-keys`);
  }
  print(`${report.secrets.sealed} stored secret(s) open with the keys given`);
}

async function main(args: string[]): Promise<number> {
  try {
    await program(loadConfig(process.env)).parseAsync(args, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof AdminRefusal || err instanceof ArchiveError || err instanceof KeysError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    if (err instanceof RefusedError || err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return err instanceof RefusedError ? err.exitCode : 2;
    }
    process.stderr.write(`admin failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
