// The agent's `run` configuration: command-line options first, then OUTPOST_* variables.
// Parsed once; nothing else in the agent reads process.env.
// In zod's functional build, which a bundle trims to what is used: an idle agent keeps 0.7 MB
// less resident than with classic zod (P2-idle).
import * as z from 'zod/mini';
import { parseHostPort } from '../../shared/src/endpoints.js';
import '../../shared/src/zod-english.js';
import { isServerList } from './control/servers.js';
import { IANA_RDAP_BOOTSTRAP } from './probers/rdap-bootstrap.js';

const nonEmpty = () => z.string().check(z.minLength(1));

// A mirror of the RDAP bootstrap file, for networks without the Internet.
const rdapBootstrap = z._default(z.url({ protocol: /^https?$/, message: 'must be the http(s) URL of an RDAP bootstrap file such as https://data.iana.org/rdap/dns.json' }), IANA_RDAP_BOOTSTRAP);

const RunConfigSchema = z
  .object({
    server: z.string({ message: 'is required (--server HOST:PORT or OUTPOST_SERVER)' }).check(z.refine(isServerList, 'must be HOST:PORT, or several separated by commas')),
    token: z.string({ message: 'is required (--token or OUTPOST_TOKEN)' }).check(z.minLength(1, 'must not be empty')),
    location: z._default(z.string().check(z.regex(/^[a-z0-9][a-z0-9_.-]{0,62}$/i, 'must be 1-63 letters, digits, dots, dashes or underscores')), 'default'),
    dataDir: z._default(nonEmpty(), './data/agent'),
    logLevel: z._default(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info'),
    ca: z.optional(nonEmpty()),
    cert: z.optional(nonEmpty()),
    key: z.optional(nonEmpty()),
    insecure: z._default(z.boolean(), false),
    proxy: z.optional(z.url({ protocol: /^http$/, message: 'must be an http:// proxy URL such as http://proxy:3128' })),
    noProxy: z.optional(z.string()),
    statusAddr: z.optional(z.string().check(z.refine((v) => parseHostPort(v) !== null, 'must be HOST:PORT'))),
    rdapBootstrap,
  })
  .check(z.refine((c) => Boolean(c.cert) === Boolean(c.key), { message: 'a client certificate needs both --cert and --key', path: ['cert'] }));

export type RunConfig = z.infer<typeof RunConfigSchema>;

export class AgentConfigError extends Error {}

const OPTION_NAMES: Record<keyof RunConfig, string> = {
  server: '--server',
  token: '--token',
  location: '--location',
  dataDir: '--data-dir',
  logLevel: '--log-level',
  ca: '--ca',
  cert: '--cert',
  key: '--key',
  insecure: '--insecure',
  statusAddr: '--status-addr',
  rdapBootstrap: '--rdap-bootstrap',
  proxy: 'HTTPS_PROXY',
  noProxy: 'NO_PROXY',
};

export type RunFlags = Partial<Record<Exclude<keyof RunConfig, 'insecure' | 'proxy' | 'noProxy'>, string>> & { insecure?: boolean };

export function loadRunConfig(flags: RunFlags, env: Record<string, string | undefined>): RunConfig {
  const pick = (flag: string | undefined, variable: string | undefined) => flag ?? (variable || undefined);
  const parsed = RunConfigSchema.safeParse({
    server: pick(flags.server, env.OUTPOST_SERVER),
    token: pick(flags.token, env.OUTPOST_TOKEN),
    location: pick(flags.location, env.OUTPOST_LOCATION),
    dataDir: pick(flags.dataDir, env.OUTPOST_DATA_DIR),
    logLevel: pick(flags.logLevel, env.LOG_LEVEL),
    ca: pick(flags.ca, env.OUTPOST_CA),
    cert: pick(flags.cert, env.OUTPOST_CERT),
    key: pick(flags.key, env.OUTPOST_KEY),
    insecure: flags.insecure ?? ['1', 'true', 'yes'].includes(env.OUTPOST_INSECURE ?? ''),
    statusAddr: pick(flags.statusAddr, env.OUTPOST_STATUS_ADDR),
    rdapBootstrap: pick(flags.rdapBootstrap, env.OUTPOST_RDAP_BOOTSTRAP),
    proxy: env.HTTPS_PROXY || env.https_proxy || undefined,
    noProxy: env.NO_PROXY || env.no_proxy || undefined,
  });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = issue?.path[0] as keyof RunConfig | undefined;
  throw new AgentConfigError(`invalid option ${key ? OPTION_NAMES[key] : ''}: ${issue?.message ?? 'invalid'}`);
}

/** `check`'s configuration: the probers' part of `run`'s. */
export function loadCheckConfig(flags: Pick<RunFlags, 'rdapBootstrap'>, env: Record<string, string | undefined>): Pick<RunConfig, 'rdapBootstrap'> {
  const parsed = z.object({ rdapBootstrap }).safeParse({ rdapBootstrap: flags.rdapBootstrap ?? (env.OUTPOST_RDAP_BOOTSTRAP || undefined) });
  if (parsed.success) return parsed.data;
  throw new AgentConfigError(`invalid option --rdap-bootstrap: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
}
