// The agent's local status endpoint (--status-addr): /healthz for supervisors, /metrics
// for Prometheus. Off unless asked for; meant for a loopback or management address.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentStatus } from '../agent.js';
import type { AgentMetrics } from './agent-metrics.js';

export interface StatusServer {
  port: number;
  close(): Promise<void>;
}

export async function startStatusServer(host: string, port: number, status: () => AgentStatus, metrics: AgentMetrics): Promise<StatusServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET') return void res.writeHead(405).end();
    if (req.url === '/healthz') {
      const s = status();
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ status: 'ok', agent_id: s.agentId, connected: s.connected, assignments: s.assignments, skipped_runs: s.skippedRuns, spool_results: s.spool.results }));
    }
    if (req.url === '/metrics') {
      metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
