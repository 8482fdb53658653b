// What the agent reports about itself, in Prometheus form: checks run and failed, schedule
// lateness, runs skipped for want of capacity, spool depth and evictions, stream state, assignments held.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AgentStatus } from '../agent.js';

export interface AgentMetrics {
  registry: Registry;
  checkCompleted(ok: boolean, latenessMs: number | null): void;
}

export function createAgentMetrics(status: () => AgentStatus): AgentMetrics {
  const registry = new Registry();
  const checks = new Counter({ name: 'outpost_agent_checks_total', help: 'Checks run, by result', labelNames: ['result'], registers: [registry] });
  const lateness = new Histogram({
    name: 'outpost_agent_schedule_lateness_seconds',
    help: 'How late scheduled checks started after their slot',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registers: [registry],
  });
  const gauge = (name: string, help: string, read: (s: AgentStatus) => number) =>
    new Gauge({ name, help, registers: [registry], collect() { this.set(read(status())); } });
  gauge('outpost_agent_connected', '1 while the stream to the control plane is up', (s) => (s.connected ? 1 : 0));
  gauge('outpost_agent_assignments', 'Services this agent checks', (s) => s.assignments);
  gauge('outpost_agent_skipped_runs', 'Scheduled runs skipped because the agent could not keep up', (s) => s.skippedRuns);
  gauge('outpost_agent_spool_results', 'Results waiting on disk for an acknowledgement', (s) => s.spool.results);
  gauge('outpost_agent_spool_bytes', 'Bytes of the spool on disk', (s) => s.spool.bytes);
  gauge('outpost_agent_spool_evicted_results', 'Results dropped because the spool was full', (s) => s.spool.evictedResults);
  return {
    registry,
    checkCompleted(ok, latenessMs) {
      checks.inc({ result: ok ? 'pass' : 'fail' });
      if (latenessMs !== null) lateness.observe(latenessMs / 1000);
    },
  };
}
