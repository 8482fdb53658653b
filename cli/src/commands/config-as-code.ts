// `outpost apply` and `outpost export`.
import { readFileSync, writeFileSync } from 'node:fs';
import type { ApiClient } from '../api-client.js';
import { CliError } from '../cli-error.js';
import { applyPlan, formatPlan } from '../config-as-code/apply.js';
import { exportOrganization } from '../config-as-code/export.js';
import { statusPageKind } from '../config-as-code/kinds.js';
import { loadFile } from '../config-as-code/load-file.js';
import { confirmPagePasswords } from '../config-as-code/page-passwords.js';
import { makePlan, readRemoteState } from '../config-as-code/plan.js';

export interface ApplyFlags {
  file: string;
  dryRun?: boolean;
  prune?: boolean;
}

type Print = (line: string) => void;

export async function apply(api: ApiClient, flags: ApplyFlags, env: Record<string, string | undefined>, print: Print): Promise<number> {
  const source = flags.file === '-' ? 'stdin' : flags.file;
  const loaded = loadFile(readSource(flags.file), source, env);
  const remote = await readRemoteState(api);
  await confirmPagePasswords(api, loaded.file, remote.rows.get(statusPageKind) ?? []);
  const plan = makePlan(loaded, remote, Boolean(flags.prune));
  for (const line of formatPlan(plan)) print(line);
  if (flags.dryRun || plan.changes.length === 0) return 0;
  await applyPlan(api, plan, print);
  print('Applied.');
  return 0;
}

export async function exportFile(api: ApiClient, output: string | undefined, print: Print): Promise<number> {
  const text = await exportOrganization(api);
  if (output && output !== '-') writeFileSync(output, text);
  else print(text.trimEnd());
  return 0;
}

function readSource(file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
  }
}
