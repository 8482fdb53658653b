// The agent for the soak (bench/soak.ts): the real agent program (scheduler, spool, publisher,
// stream) with an HTTP prober that answers at once, so that 5,000 services per agent cost no
// connections. While OUTAGE_FILE exists every check fails as a refused connection would. Every
// 10 s it prints its status (spool, assignments, connected) as one JSON line on stdout, which
// the soak reads; its log goes to stderr. Compiled with the agent and run like it (plain node,
// the unit's Node options).
//
//   node <built>/instant-agent.js SERVER TOKEN LOCATION DATA_DIR OUTAGE_FILE
import { stat } from 'node:fs';
import pino from 'pino';
import { createAgent } from '../../agent/src/agent.js';
import type { ProbeResult } from '../../agent/src/probers/prober.js';
import { createProberRegistry } from '../../agent/src/probers/registry.js';

const STATUS_EVERY_MS = 10_000;
/** The outage file is looked at this often, not per check: a stat per check is a cost the product does not have. */
const OUTAGE_LOOK_MS = 1_000;

const [server, token, location, dataDir, outageFile] = process.argv.slice(2);
if (!server || !token || !location || !dataDir || !outageFile) throw new Error('usage: instant-agent.js SERVER TOKEN LOCATION DATA_DIR OUTAGE_FILE');

let outage = false;
const lookForOutage = () => stat(outageFile, (err) => (outage = !err));
lookForOutage();
const looking = setInterval(lookForOutage, OUTAGE_LOOK_MS);

// What the HTTP prober stores for a plain-HTTP target (status code and phase timings, P8's row).
const answer = (): ProbeResult =>
  outage
    ? { ok: false, responseTimeMs: 0, message: 'connection refused', details: {} }
    : { ok: true, responseTimeMs: 1, message: 'HTTP 200 in 1 ms', details: { status_code: 200, connect_ms: 0.1, ttfb_ms: 0.7, transfer_ms: 0.2 } };
const registry = createProberRegistry([{ family: 'HTTP', prepare: () => () => Promise.resolve(answer()) }]);

const logger = pino({ level: 'warn' }, pino.destination(2));
const agent = createAgent({ server, token, location, dataDir, version: 'bench', registry, logger });
await agent.start();
const printStatus = () => process.stdout.write(`${JSON.stringify(agent.status())}\n`);
const reporting = setInterval(printStatus, STATUS_EVERY_MS);
printStatus();

process.once('SIGTERM', () => {
  clearInterval(looking);
  clearInterval(reporting);
  void agent.stop().then(printStatus);
});
