#!/usr/bin/env node
import { main } from './program.js';

main(process.argv.slice(2), process.env).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`outpost: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
