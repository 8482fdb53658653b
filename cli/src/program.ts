// The `outpost` command line: every command is a call of the REST API.
import { Command, Option } from 'commander';
import { ApiClient } from './api-client.js';
import { CliError, UsageError } from './cli-error.js';
import { outputFormat } from './output.js';
import { connection, parseCliEnv, type CliEnv } from './settings.js';

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

const stdio: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** Runs the CLI; resolves with the exit code: 0 ok, 1 failure, 2 usage. */
export async function main(argv: string[], rawEnv: Record<string, string | undefined>, io: Io = stdio): Promise<number> {
  const env: CliEnv = parseCliEnv(rawEnv);
  let exitCode = 0;
  const program = new Command('outpost')
    .description('Outpost from the command line: services, alerts, agents, status page incidents and subscribers, reports, and the organization as code')
    .option('--url <url>', 'control plane URL, e.g. https://outpost.example.com (OUTPOST_URL)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) });

  const output = () => new Option('-o, --output <format>', 'table or json').choices(['table', 'json']).default('table');
  const client = () => {
    const { url, token } = connection(program.opts().url, env);
    return new ApiClient(url, token);
  };
  const resources = async (format: unknown) => {
    const { resourceCommands } = await import('./commands/resources.js');
    return resourceCommands(client(), outputFormat(format), io.out);
  };
  const silencing = async (format: unknown) => {
    const { silenceCommands } = await import('./commands/silences.js');
    return silenceCommands(client(), outputFormat(format), io.out);
  };
  const incidentsOf = async (format: unknown) => {
    const { incidentCommands } = await import('./commands/incidents.js');
    return incidentCommands(client(), outputFormat(format), io.out);
  };
  const subscribersOf = async (format: unknown) => {
    const { subscriberCommands } = await import('./commands/subscribers.js');
    return subscriberCommands(client(), outputFormat(format), io.out);
  };

  program
    .command('login')
    .description('log in with an e-mail and password and store the token (in $XDG_CONFIG_HOME/outpost/, mode 0600)')
    .option('--email <email>', 'account e-mail (prompted when absent)')
    .option('--password <password>', 'password (prompted when absent)')
    .option('--code <code>', 'a code of your authenticator app or a recovery code, for an account with a second factor (prompted when needed)')
    .action(async (flags) => {
      const { login } = await import('./commands/login.js');
      exitCode = await login(program.opts().url, flags, env, io.out);
    });

  const services = program.command('services').description('monitored services');
  services.command('ls').description('list the services').addOption(output()).action(async (f) => (await resources(f.output)).listServices());
  services.command('get <service>').description('show one service (by name or id)').addOption(output()).action(async (ref, f) => (await resources(f.output)).getService(ref));
  services
    .command('create')
    .description('create a service')
    .requiredOption('--name <name>', 'service name')
    .requiredOption('--type <type>', 'check type, e.g. HTTP, TCP, PING')
    .requiredOption('--endpoint <endpoint>', 'URL, host:port or host, as the check type needs')
    .option('--interval <seconds>', 'seconds between checks', integer)
    .option('--timeout <seconds>', 'seconds before a check fails', integer)
    .option('--location <name...>', 'where it is checked from')
    .option('--tag <tag...>', 'tags')
    .addOption(output())
    .action(async (f) =>
      (await resources(f.output)).createService({
        name: f.name,
        check_type: f.type,
        endpoint: f.endpoint,
        check_interval_seconds: f.interval,
        timeout_seconds: f.timeout,
        locations: f.location,
        tags: f.tag,
      }),
    );
  services.command('rm <service>').description('delete a service and its history').addOption(output()).action(async (ref, f) => (await resources(f.output)).removeService(ref));

  program.command('check <service>').description('run a check of the service now').addOption(output()).action(async (ref, f) => (await resources(f.output)).checkService(ref));

  const alerts = program.command('alerts').description('alerts');
  alerts
    .command('ls')
    .description('list alerts (active ones by default)')
    .addOption(new Option('--status <status>', 'which alerts').choices(['active', 'firing', 'acknowledged', 'resolved', 'all']).default('active'))
    .addOption(output())
    .action(async (f) => (await resources(f.output)).listAlerts(f.status));
  alerts.command('ack <alert-id>').description('acknowledge an alert').addOption(output()).action(async (id, f) => (await resources(f.output)).acknowledgeAlert(id));
  alerts.command('resolve <alert-id>').description('resolve an alert').addOption(output()).action(async (id, f) => (await resources(f.output)).resolveAlert(id));
  alerts
    .command('snooze <alert-id>')
    .description("silence the alert's service for a while: it stays open but notifies nobody")
    .requiredOption('--for <duration>', 'how long: 1h, 4h, 8h, 24h, 30m, 2d...')
    .addOption(output())
    .action(async (id, f) => (await silencing(f.output)).snooze(id, f.for));

  const silences = program.command('silences').description('silences: alerts of the services they cover open but notify nobody');
  silences
    .command('ls')
    .description('list silences (current ones by default: active and pending)')
    .addOption(new Option('--state <state>', 'which silences').choices(['current', 'active', 'pending', 'expired', 'all']).default('current'))
    .addOption(output())
    .action(async (f) => (await silencing(f.output)).list(f.state));
  silences
    .command('create')
    .description('silence the services every given matcher selects')
    .option('--service <service...>', 'services, by name or id')
    .option('--tag <tag...>', 'tags a service must all carry')
    .option('--environment <environment>', 'the environment')
    .option('--location <location...>', 'locations, any of them')
    .option('--check-type <type...>', 'check types, any of them')
    .option('--for <duration>', 'how long from its start: 30m, 4h, 1d...')
    .option('--until <time>', 'when it ends, e.g. 2030-01-31T18:00:00Z')
    .option('--from <time>', 'when it starts (default now)')
    .requiredOption('--comment <text>', 'why')
    .addOption(output())
    .action(async (f) => (await silencing(f.output)).create(f));
  silences.command('expire <silence-id>').description('end a silence now').addOption(output()).action(async (id, f) => (await silencing(f.output)).expire(id));

  const incidents = program.command('incidents').description("a status page's incidents: what the team tells the people who depend on it");
  const page = () => new Option('--page <page>', 'the status page, by slug or id').makeOptionMandatory();
  incidents
    .command('ls')
    .description('list the incidents of a status page (open ones by default), newest first')
    .addOption(page())
    .addOption(new Option('--status <status>', 'which incidents').choices(['open', 'resolved', 'all']).default('open'))
    .addOption(output())
    .action(async (f) => (await incidentsOf(f.output)).list(f.page, f.status));
  incidents
    .command('open')
    .description('write an incident on a status page, with its first update (its subscribers hear of it)')
    .addOption(page())
    .requiredOption('--title <title>', 'what is wrong, in a few words')
    .requiredOption('--message <message>', 'the first update')
    .addOption(new Option('--status <status>', 'where it stands').choices(INCIDENT_STATUSES).default('investigating'))
    .addOption(new Option('--impact <impact>', 'how bad it is').choices(INCIDENT_IMPACTS).default('minor'))
    .option('--service <service...>', 'the affected services, by name or id')
    .option('--started <time>', 'when it began, to backdate it, e.g. 2025-01-31T18:00:00Z (default now)')
    .option('--alert <alert-id>', 'the alert it is about (the page then does not show that alert besides it)')
    .addOption(output())
    .action(async (f) => (await incidentsOf(f.output)).open(f));
  incidents
    .command('update <incident-id>')
    .description('post an update (its subscribers hear of it)')
    .addOption(page())
    .addOption(new Option('--status <status>', 'where it stands now').choices(INCIDENT_STATUSES).makeOptionMandatory())
    .requiredOption('--message <message>', 'the update')
    .addOption(output())
    .action(async (id, f) => (await incidentsOf(f.output)).update(id, f.page, f.status, f.message));
  incidents
    .command('resolve <incident-id>')
    .description('post the update that resolves it')
    .addOption(page())
    .option('--message <message>', 'the last update (default: "This incident has been resolved.")')
    .addOption(output())
    .action(async (id, f) => (await incidentsOf(f.output)).resolve(id, f.page, f.message));

  const subscribers = program.command('subscribers').description("a status page's subscribers (admins and owners)");
  subscribers.command('ls').description('list the subscribers of a status page').addOption(page()).addOption(output()).action(async (f) => (await subscribersOf(f.output)).list(f.page));
  subscribers
    .command('export')
    .description('write the subscribers of a status page as CSV on standard output')
    .addOption(page())
    .action(async (f) => (await subscribersOf('table')).exportCsv(f.page));
  subscribers
    .command('rm <subscriber-id>')
    .description('remove a subscriber')
    .addOption(page())
    .addOption(output())
    .action(async (id, f) => (await subscribersOf(f.output)).remove(id, f.page));

  const reports = program.command('reports').description('reports');
  reports
    .command('uptime')
    .description('uptime, checks, downtime and response times per service over a range of up to 400 days')
    .option('--from <date>', 'start: a date (its midnight UTC) or a time (default: 30 days before --to)')
    .option('--to <date>', 'end: a date (the end of that day, UTC) or a time (default: now)')
    .option('--service <service...>', 'only these services, by name or id')
    .option('--tag <tag...>', 'only the services with any of these tags')
    .addOption(new Option('-o, --output <format>', 'table, json, or csv (the API\'s CSV as is)').choices(['table', 'json', 'csv']).default('table'))
    .action(async (f) => {
      const { reportCommands } = await import('./commands/reports.js');
      await reportCommands(client(), io.out).uptime(f);
    });

  const agents = program.command('agents').description('agents and their locations');
  agents.command('ls').description('list the agents').addOption(output()).action(async (f) => (await resources(f.output)).listAgents());
  agents
    .command('create <name>')
    .description('register an agent; prints its token once')
    .requiredOption('--location <location>', 'the location it checks from')
    .addOption(output())
    .action(async (name, f) => (await resources(f.output)).createAgent(name, f.location));

  program
    .command('apply')
    .description('make the organization match the file; prints the plan first')
    .requiredOption('-f, --file <file>', 'outpost.yaml, or - for standard input')
    .option('--dry-run', 'print the plan only')
    .option('--prune', 'delete what the file does not name (without it nothing is deleted)')
    .action(async (f) => {
      const { apply } = await import('./commands/config-as-code.js');
      // The whole environment: the file's ${ENV} references may name any variable.
      exitCode = await apply(client(), f, rawEnv, io.out);
    });

  program
    .command('export')
    .description('write the organization in the outpost.yaml format (secrets as ${ENV} references)')
    .option('-f, --file <file>', 'write here instead of standard output')
    .action(async (f) => {
      const { exportFile } = await import('./commands/config-as-code.js');
      exitCode = await exportFile(client(), f.file, io.out);
    });

  const importer = program
    .command('import')
    .description('write an outpost.yaml from another monitor\'s configuration, with a report of what it could not map');
  importer
    .command('gatus <file>')
    .description('from a Gatus config.yaml (or a folder of them); secrets become ${ENV} references')
    .option('--out <file>', 'write the outpost.yaml here instead of standard output')
    .option('--apply', 'apply it now (prints the plan first, as outpost apply)')
    .action(async (file, f) => {
      const { importGatusCommand } = await import('./commands/import.js');
      exitCode = await importGatusCommand(file, f, rawEnv, io, client);
    });
  importer
    .command('kuma <file>')
    .description('from an Uptime Kuma kuma.db (1.23 or 2.x) or 1.x JSON backup; secrets become ${ENV} references')
    .option('--out <file>', 'write the outpost.yaml here instead of standard output')
    .option('--apply', 'apply it now (prints the plan first, as outpost apply)')
    .action(async (file, f) => {
      const { importKumaCommand } = await import('./commands/import.js');
      exitCode = await importKumaCommand(file, f, rawEnv, io, client);
    });

  program
    .command('schema')
    .description('print the JSON Schema of outpost.yaml, for editors (also in docs/outpost.schema.json)')
    .action(async () => {
      const { outpostFileJsonSchema } = await import('./config-as-code/file-schema.js');
      io.out(JSON.stringify(outpostFileJsonSchema(), null, 2));
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CliError) {
      io.err(`outpost: ${err.message}`);
      return err.exitCode;
    }
    // Commander's own exits: help and version are 0, a usage mistake is 2.
    const code = (err as { exitCode?: number }).exitCode;
    if (typeof code === 'number') return code === 0 ? 0 : 2;
    throw err;
  }
}

// The API's values (control-plane/src/features/incidents/incidents.schema.ts).
const INCIDENT_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'];
const INCIDENT_IMPACTS = ['none', 'minor', 'major', 'critical'];

function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new UsageError(`"${value}" is not a whole number`);
  return n;
}
