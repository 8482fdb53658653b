// `outpost-agent check`: one check from this host, printed with its timings; exit code 0
// when it passed, 1 when it failed, 2 for a bad invocation.
import { endpointFormat, normaliseCheckType } from '../../../shared/src/check-types.js';
import { parseCheckOptions } from '../../../shared/src/check-options.js';
import { endpointProblem } from '../../../shared/src/endpoints.js';
import { defaultProbers } from '../probers/index.js';
import type { DetailValue } from '../probers/prober.js';
import { createProberRegistry } from '../probers/registry.js';
import { runWithRetries } from '../scheduler/retries.js';
import { UsageError } from './usage-error.js';

export interface CheckFlags {
  type: string;
  endpoint: string;
  timeout: string;
  option: string[];
  json?: boolean;
}

export async function runCheck(flags: CheckFlags, print: (line: string) => void): Promise<number> {
  const checkType = normaliseCheckType(flags.type);
  if (!checkType) throw new UsageError(`unknown check type "${flags.type}"`);
  const problem = endpointProblem(endpointFormat(checkType), flags.endpoint);
  if (problem) throw new UsageError(`endpoint for ${checkType} ${problem}`);
  const timeoutSeconds = Number(flags.timeout);
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 120) throw new UsageError('--timeout must be an integer from 1 to 120');
  const parsed = parseCheckOptions(checkType, parseOptionFlags(flags.option));
  if (!parsed.ok) throw new UsageError(`invalid option ${parsed.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);

  const registry = createProberRegistry(defaultProbers());
  const target = { checkType, endpoint: flags.endpoint, timeoutMs: timeoutSeconds * 1000, options: parsed.options };
  const result = await runWithRetries(() => registry.run(target), parsed.options);
  if (flags.json) {
    print(JSON.stringify({ check_type: checkType, endpoint: flags.endpoint, ...result }));
  } else {
    print(`${result.ok ? (result.degraded ? 'WARN' : 'PASS') : 'FAIL'} ${checkType} ${flags.endpoint}: ${result.message} (${result.responseTimeMs} ms)`);
    for (const [key, value] of Object.entries(result.details)) print(`  ${key}: ${formatDetail(value)}`);
  }
  return result.ok ? 0 : 1;
}

/** key=value pairs; values that parse as JSON (numbers, booleans, arrays) are taken as such. */
function parseOptionFlags(pairs: string[]): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--option takes key=value, got "${pair}"`);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
    options[pair.slice(0, eq)] = value;
  }
  return options;
}

/** Lists of words as "a, b"; nested facts (a certificate chain) as JSON. */
function formatDetail(value: DetailValue): string {
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null)) return value.join(', ');
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}
