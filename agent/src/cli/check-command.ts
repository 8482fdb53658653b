// `outpost-agent check`: one check from this host, printed with its timings; exit code 0
// when it passed, 1 when it failed, 2 for a bad invocation.
import { endpointFormat, normaliseCheckType, type CheckType } from '../../../shared/src/check-types.js';
import { parseCheckOptions, type ParsedOptions } from '../../../shared/src/check-options.js';
import { endpointProblem } from '../../../shared/src/endpoints.js';
import { loadCheckConfig } from '../config.js';
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
  rdapBootstrap?: string;
}

export async function runCheck(flags: CheckFlags, print: (line: string) => void, env: Record<string, string | undefined>): Promise<number> {
  const checkType = normaliseCheckType(flags.type);
  if (!checkType) throw new UsageError(`unknown check type "${flags.type}"`);
  const problem = endpointProblem(endpointFormat(checkType), flags.endpoint);
  if (problem) throw new UsageError(`endpoint for ${checkType} ${problem}`);
  const timeoutSeconds = Number(flags.timeout);
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 120) throw new UsageError('--timeout must be an integer from 1 to 120');
  const parsed = parseOptionsOf(checkType, flags.option);
  if (!parsed.ok) throw new UsageError(`invalid option ${parsed.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);

  const registry = createProberRegistry(defaultProbers({ rdapBootstrapUrl: loadCheckConfig(flags, env).rdapBootstrap }));
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

/**
 * key=value pairs; values that parse as JSON (numbers, booleans, arrays) are taken as such,
 * unless the option wants text: `version=3` of SNMP and `community=12345` stay strings.
 */
function parseOptionsOf(checkType: CheckType, pairs: string[]): ParsedOptions {
  const typed: Record<string, unknown> = {};
  const texts: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--option takes key=value, got "${pair}"`);
    const key = pair.slice(0, eq);
    const raw = pair.slice(eq + 1);
    texts[key] = raw;
    try {
      typed[key] = JSON.parse(raw);
    } catch {
      typed[key] = raw;
    }
  }
  const parsed = parseCheckOptions(checkType, typed);
  if (parsed.ok) return parsed;
  const asText = parsed.issues.map((i) => i.path.split('.')[0]!).filter((key) => Object.hasOwn(texts, key) && typeof typed[key] !== 'string');
  return asText.length === 0 ? parsed : parseCheckOptions(checkType, { ...typed, ...Object.fromEntries(asText.map((key) => [key, texts[key]])) });
}

/** Lists of words as "a, b"; nested facts (a certificate chain) as JSON. */
function formatDetail(value: DetailValue): string {
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null)) return value.join(', ');
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}
