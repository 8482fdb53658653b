// Writes docs/outpost.schema.json, the JSON Schema of outpost.yaml, from the CLI's zod schema
// (test/cli/file-schema.test.ts fails when it is out of date).
import { writeFileSync } from 'node:fs';
import { outpostFileJsonSchema } from '../cli/src/config-as-code/file-schema.js';

export const CLI_SCHEMA_PATH = 'docs/outpost.schema.json';

export function cliSchemaText(): string {
  return `${JSON.stringify(outpostFileJsonSchema(), null, 2)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(CLI_SCHEMA_PATH, cliSchemaText());
  process.stdout.write(`wrote ${CLI_SCHEMA_PATH}\n`);
}
