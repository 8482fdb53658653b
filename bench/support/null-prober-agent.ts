// The agent with a prober that answers at once, for P1's breakdown: what the agent itself
// costs per check (scheduler, deadline, spool, publisher, stream) with no connection made.
// Compiled with the agent and run like it (plain node, the unit's Node options).
//
//   node <built>/bench/support/null-prober-agent.js SERVER DATA_DIR
import pino from 'pino';
import { createAgent } from '../../agent/src/agent.js';
import { createProberRegistry } from '../../agent/src/probers/registry.js';

const [server, dataDir] = process.argv.slice(2);
if (!server || !dataDir) throw new Error('usage: null-prober-agent.js SERVER DATA_DIR');
const registry = createProberRegistry([
  { family: 'TCP', prepare: () => () => Promise.resolve({ ok: true, responseTimeMs: 0, message: 'connected in 0 ms', details: { connect_ms: 0 } }) },
]);
const agent = createAgent({ server, token: 'good-token', location: 'bench', dataDir, version: 'bench', registry, logger: pino({ level: 'error' }) });
await agent.start();
process.once('SIGTERM', () => void agent.stop());
