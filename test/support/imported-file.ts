// What `outpost import gatus|kuma` printed, read as a user reads it: the variables its report
// lists, and the written file through the CLI's own loader with each of them set.
import { loadFile } from '../../cli/src/config-as-code/load-file.js';
import type { CliRun } from './cli-process.js';

/** The variables the report lists, from the lines after its heading. */
export function variablesOf(stderr: string): string[] {
  const lines = stderr.split('\n');
  const from = lines.findIndex((l) => l.startsWith('Set these environment variables'));
  if (from < 0) return [];
  return lines
    .slice(from + 1)
    .map((l) => /^ {2}([A-Z_][A-Z0-9_]*) /.exec(l)?.[1])
    .filter((v): v is string => v !== undefined);
}

/** The produced file through the CLI's own reader, each variable set as `outpost apply` would need (`value-of-NAME` unless `valueOf` says). */
export function loadImported(run: CliRun, valueOf: (name: string) => string | undefined = () => undefined) {
  const env = Object.fromEntries(variablesOf(run.stderr).map((v) => [v, valueOf(v) ?? `value-of-${v}`]));
  return loadFile(run.stdout, 'imported.yaml', env).file;
}
