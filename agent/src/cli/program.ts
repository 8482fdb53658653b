import { Command, Option } from 'commander';
import { AgentConfigError } from '../config.js';
import { AGENT_VERSION } from '../version.js';
import { runCheck, UsageError } from './check-command.js';
import { runAgent } from './run-command.js';

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
    .option('--server <host:port>', 'control plane gRPC address (OUTPOST_SERVER)')
    .option('--token <token>', 'agent token (OUTPOST_TOKEN)')
    .option('--location <name>', 'location this agent checks from (OUTPOST_LOCATION)')
    .option('--data-dir <dir>', 'where the agent keeps its id and undelivered results (OUTPOST_DATA_DIR)')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent (LOG_LEVEL)')
    .option('--ca <file>', 'CA certificate to trust for the control plane instead of the system store (OUTPOST_CA)')
    .option('--cert <file>', 'client certificate for mTLS (OUTPOST_CERT)')
    .option('--key <file>', 'private key of the client certificate (OUTPOST_KEY)')
    .option('--insecure', 'plaintext even to a non-loopback control plane (OUTPOST_INSECURE)')
    .option('--status-addr <host:port>', 'serve /healthz and Prometheus /metrics here (OUTPOST_STATUS_ADDR)')
    .action(async (flags) => {
      exitCode = await runAgent(flags, env);
    });

  program
    .command('check')
    .description('run one check from this host and print the result with its timings')
    .requiredOption('--type <type>', 'check type, e.g. HTTP, TCP, SSH')
    .requiredOption('--endpoint <endpoint>', 'URL, host:port or host, as the check type needs')
    .option('--timeout <seconds>', 'hard timeout for the whole check', '10')
    .addOption(new Option('--option <key=value...>', 'a check option, e.g. --option method=HEAD').default([]))
    .option('--json', 'print the result as one JSON line')
    .action(async (flags) => {
      exitCode = await runCheck(flags, (line) => process.stdout.write(`${line}\n`));
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
