#!/usr/bin/env node
import { main } from './cli/program.js';

main(process.argv.slice(2), process.env).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`outpost-agent: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
