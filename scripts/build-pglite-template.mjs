#!/usr/bin/env node
// Writes dist/pglite-template: the data folder PGlite's initdb makes, migrated, which the
// embedded database loads on a first start instead of running initdb and the migrations itself
// (see control-plane/src/db/pglite-template.ts). Made from the installed PGlite and this
// build's migrations, so it always matches them; skipped when the template there already does.
// `--force` makes it regardless.
// Runs after tsc, as part of `npm run build`.
import { defaultTemplateDir, holdsEveryMigration, readTemplate, writeTemplate } from '../dist/control-plane/src/db/pglite-template.js';

const dir = defaultTemplateDir();
if (process.argv.includes('--force') || !holdsEveryMigration(await readTemplate(dir))) {
  console.log(`making the embedded database's template in ${dir}`);
  await writeTemplate(dir);
}
