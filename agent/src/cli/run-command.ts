// `outpost-agent run`: connects to the control plane and runs checks until SIGTERM/SIGINT.
import { pino } from 'pino';
import { createAgent } from '../agent.js';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import { streamTls } from '../control/credentials.js';
import type { AgentMetrics } from '../status/agent-metrics.js';
import type { StatusServer } from '../status/status-server.js';
import { loadRunConfig, type RunFlags } from '../config.js';
import { defaultProbers } from '../probers/index.js';
import { createProberRegistry } from '../probers/registry.js';
import { AGENT_VERSION } from '../version.js';

export async function runAgent(flags: RunFlags, env: Record<string, string | undefined>): Promise<number> {
  const config = loadRunConfig(flags, env);
  const logger = pino({ level: config.logLevel, base: { service: 'outpost-agent' }, redact: ['token'] });
  let fatal: (reason: string) => void = () => undefined;
  let metrics: AgentMetrics | undefined;
  const refused = new Promise<string>((resolve) => (fatal = resolve));
  const tls = streamTls({ server: config.server, caFile: config.ca, certFile: config.cert, keyFile: config.key, insecure: config.insecure });
  if (!tls) logger.warn({ server: config.server }, 'the stream to the control plane is not encrypted (loopback or --insecure)');
  const agent = createAgent({
    server: config.server,
    tls,
    proxy: config.proxy ? { url: config.proxy, noProxy: config.noProxy } : undefined,
    token: config.token,
    location: config.location,
    dataDir: config.dataDir,
    version: AGENT_VERSION,
    registry: createProberRegistry(defaultProbers({ rdapBootstrapUrl: config.rdapBootstrap })),
    logger,
    onFatal: (reason) => fatal(reason),
    onCheck: (ok, latenessMs) => metrics?.checkCompleted(ok, latenessMs),
  });
  await agent.start();
  let statusServer: StatusServer | undefined;
  if (config.statusAddr) {
    const { host, port } = parseHostPort(config.statusAddr)!;
    // prom-client and the HTTP server only for an agent that serves them (about 10 MB).
    const [{ createAgentMetrics }, { startStatusServer }] = await Promise.all([import('../status/agent-metrics.js'), import('../status/status-server.js')]);
    metrics = createAgentMetrics(agent.status);
    statusServer = await startStatusServer(host, port, agent.status, metrics);
    logger.info({ statusAddr: config.statusAddr }, 'serving /healthz and /metrics');
  }

  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  const outcome = await Promise.race([signalled.then((signal) => ({ signal })), refused.then((reason) => ({ reason }))]);
  await agent.stop();
  await statusServer?.close();
  if ('reason' in outcome) {
    process.stderr.write(`outpost-agent: the control plane refused this agent: ${outcome.reason}\n`);
    return 1;
  }
  logger.info({ signal: outcome.signal }, 'agent stopped');
  return 0;
}
