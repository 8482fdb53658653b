// Operator commands run on the control plane's host, against its database:
//   npm run admin -- set-plan ORG_SLUG PLAN
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { createLogger } from './logger.js';
import { PLANS } from './features/organizations/plans.js';

const USAGE = `usage: admin set-plan ORG_SLUG PLAN   (plans: ${Object.keys(PLANS).join(', ')})`;

async function main(args: string[]): Promise<number> {
  const [command, slug, plan] = args;
  if (command !== 'set-plan' || !slug || !plan) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (!(plan in PLANS)) {
    process.stderr.write(`unknown plan "${plan}"\n${USAGE}\n`);
    return 2;
  }
  const config = loadConfig(process.env);
  const db = await openDatabase({ url: config.databaseUrl, embeddedDataDir: config.dataDir, poolSize: 1, logger: createLogger('warn') });
  try {
    const rows = await db.em().execute<{ id: string }[]>('update organizations set plan = ?, updated_at = now() where slug = ? returning id', [plan, slug]);
    if (rows.length === 0) {
      process.stderr.write(`no organization with the slug "${slug}"\n`);
      return 1;
    }
    process.stdout.write(`organization ${slug} is now on the ${plan} plan\n`);
    return 0;
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${err instanceof ConfigError ? err.message : `admin failed: ${err instanceof Error ? err.message : String(err)}`}\n`);
    process.exit(1);
  },
);
