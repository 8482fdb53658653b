import { Command, Option } from 'commander';
import { AgentConfigError } from '../config.js';
import { AGENT_VERSION } from '../version.js';
import { isServerList } from '../control/servers.js';
import { UsageError } from './usage-error.js';

// Each command's module is loaded when that command runs: `run` never loads what `check` or
// `install` need, which keeps the long-running agent's memory down.

/** Runs the CLI; resolves with the process exit code. */
export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  let exitCode = 0;
  const program = new Command('outpost-agent')
    .description('Outpost agent: runs checks inside this network for the Outpost control plane')
    .version(AGENT_VERSION)
    .exitOverride();

  program
    .command('run')
    .description('connect to the control plane and run the checks of this location')
    .option('--server <host:port>', 'control plane gRPC address, or several replicas separated by commas (OUTPOST_SERVER)')
    .option('--token <token>', 'agent token (OUTPOST_TOKEN)')
    .option('--location <name>', 'location this agent checks from (OUTPOST_LOCATION)')
    .option('--data-dir <dir>', 'where the agent keeps its id and undelivered results (OUTPOST_DATA_DIR)')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent (LOG_LEVEL)')
    .option('--ca <file>', 'CA certificate to trust for the control plane instead of the system store (OUTPOST_CA)')
    .option('--cert <file>', 'client certificate for mTLS (OUTPOST_CERT)')
    .option('--key <file>', 'private key of the client certificate (OUTPOST_KEY)')
    .option('--insecure', 'plaintext even to a non-loopback control plane (OUTPOST_INSECURE)')
    .option('--status-addr <host:port>', 'serve /healthz and Prometheus /metrics here (OUTPOST_STATUS_ADDR)')
    .option('--rdap-bootstrap <url>', 'where DOMAIN checks find RDAP services, by default https://data.iana.org/rdap/dns.json (OUTPOST_RDAP_BOOTSTRAP)')
    .action(async (flags) => {
      const { runAgent } = await import('./run-command.js');
      exitCode = await runAgent(flags, env);
    });

  program
    .command('install')
    .description('install this agent as a systemd service (unit, environment file with the token, data directory); from the Debian package, fill in /etc/outpost-agent/agent.env and start the packaged service')
    .requiredOption('--server <host:port>', 'control plane gRPC address, or several replicas separated by commas')
    .requiredOption('--token <token>', 'agent token')
    .requiredOption('--location <name>', 'location this agent checks from')
    .option('--data-dir <dir>', 'data directory', '/var/lib/outpost-agent')
    .option('--user <name>', 'system user the service runs as', 'outpost-agent')
    .option('--ca <file>', 'CA certificate to trust for the control plane')
    .option('--insecure', 'plaintext to a control plane that is not on loopback (its gRPC endpoint has no TLS)')
    .option('--root <dir>', 'install under this folder instead of / (packaging, tests)', '/')
    .option('--dry-run', 'print what would be written and run, change nothing')
    .action(async (flags) => {
      const location = String(flags.location);
      if (!/^[a-z0-9][a-z0-9_.-]{0,62}$/i.test(location)) throw new UsageError('--location must be 1-63 letters, digits, dots, dashes or underscores');
      if (!isServerList(String(flags.server))) throw new UsageError('--server must be HOST:PORT, or several separated by commas');
      const { install } = await import('./install-command.js');
      exitCode = install(flags, (line) => process.stdout.write(`${line}\n`));
    });

  program
    .command('uninstall')
    .description('remove the systemd service of this agent')
    .option('--data-dir <dir>', 'data directory', '/var/lib/outpost-agent')
    .option('--root <dir>', 'the folder it was installed under', '/')
    .option('--purge', 'also delete the data directory (undelivered results included)')
    .action(async (flags) => {
      const { uninstall } = await import('./install-command.js');
      exitCode = uninstall(flags, (line) => process.stdout.write(`${line}\n`));
    });

  program
    .command('check')
    .description('run one check from this host and print the result with its timings')
    .requiredOption('--type <type>', 'check type, e.g. HTTP, TCP, SSH')
    .requiredOption('--endpoint <endpoint>', 'URL, host:port or host, as the check type needs')
    .option('--timeout <seconds>', 'hard timeout for the whole check', '10')
    .addOption(new Option('--option <key=value...>', 'a check option, e.g. --option method=HEAD').default([]))
    .option('--json', 'print the result as one JSON line')
    .option('--rdap-bootstrap <url>', 'where a DOMAIN check finds RDAP services, by default https://data.iana.org/rdap/dns.json (OUTPOST_RDAP_BOOTSTRAP)')
    .action(async (flags) => {
      const { runCheck } = await import('./check-command.js');
      exitCode = await runCheck(flags, (line) => process.stdout.write(`${line}\n`), env);
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof UsageError || err instanceof AgentConfigError) {
      process.stderr.write(`outpost-agent: ${err.message}\n`);
      return 2;
    }
    const code = (err as { exitCode?: number; code?: string }).exitCode;
    if (typeof code === 'number') return code === 0 ? 0 : 2;
    throw err;
  }
}
