// `outpost-agent run`: connects to the control plane and runs checks until SIGTERM/SIGINT.
import { pino } from 'pino';
import { createAgent } from '../agent.js';
import { loadRunConfig, type RunConfig } from '../config.js';
import { defaultProbers } from '../probers/index.js';
import { createProberRegistry } from '../probers/registry.js';
import { AGENT_VERSION } from '../version.js';

export async function runAgent(flags: Partial<Record<keyof RunConfig, string>>, env: Record<string, string | undefined>): Promise<number> {
  const config = loadRunConfig(flags, env);
  const logger = pino({ level: config.logLevel, base: { service: 'outpost-agent' }, redact: ['token'] });
  let fatal: (reason: string) => void = () => undefined;
  const refused = new Promise<string>((resolve) => (fatal = resolve));
  const agent = createAgent({
    server: config.server,
    token: config.token,
    location: config.location,
    dataDir: config.dataDir,
    version: AGENT_VERSION,
    registry: createProberRegistry(defaultProbers()),
    logger,
    onFatal: (reason) => fatal(reason),
  });
  await agent.start();

  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  const outcome = await Promise.race([signalled.then((signal) => ({ signal })), refused.then((reason) => ({ reason }))]);
  await agent.stop();
  if ('reason' in outcome) {
    process.stderr.write(`outpost-agent: the control plane refused this agent: ${outcome.reason}\n`);
    return 1;
  }
  logger.info({ signal: outcome.signal }, 'agent stopped');
  return 0;
}
