import { spawnSync } from 'node:child_process';
import { expect } from 'chai';

/**
 * Which of the migration machinery's packages a fresh process loads when it opens the database
 * `target` (a postgres:// URL, or "embedded:<data folder>" with the embedded database's template).
 */
export function migrationModulesLoadedByAStart(target: string, templateDir?: string): string[] {
  const args = ['--import', 'tsx', 'test/fixtures/open-database-child.ts', target, ...(templateDir ? [templateDir] : [])];
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 90_000 });
  expect(run.status, run.stderr).to.equal(0);
  return (JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { loaded: string[] }).loaded;
}
