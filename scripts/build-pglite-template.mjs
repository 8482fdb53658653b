#!/usr/bin/env node
// Writes dist/pglite-template: the data folder PGlite's initdb makes, which the embedded
// database loads on a first start instead of running initdb itself (see
// control-plane/src/db/pglite-template.ts). Made from the installed PGlite, so it always
// matches it; skipped when the template there already does. `--force` makes it regardless.
// Runs after tsc, as part of `npm run build`.
import { defaultTemplateDir, readTemplate, writeTemplate } from '../dist/control-plane/src/db/pglite-template.js';

const dir = defaultTemplateDir();
if (process.argv.includes('--force') || !(await readTemplate(dir)).found) {
  console.log(`making the embedded database's template in ${dir}`);
  await writeTemplate(dir);
}
