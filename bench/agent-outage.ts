// Benchmark: an agent process keeps checking through a control-plane outage and delivers
// every result afterwards. Prints expected (checks the target saw) against found (rows in
// the check log), the spool's size at the end of the outage, and the time to drain it.
//
//   npx tsx bench/agent-outage.ts [outage_seconds=600] [services=1000] [interval_seconds=10]
// (1000 services every 10 s = 100 checks/s.) Uses TEST_DATABASE_URL or the embedded database.
import { readdirSync, statSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startAgentProcess } from '../test/support/agent-process.js';
import { startTestControlPlane } from '../test/support/control-plane-harness.js';
import { poll } from '../test/support/poll.js';
import { sql } from '../test/support/sql.js';
import { spooledResultCount } from '../test/support/spooled-results.js';
import { stopTestDatabase } from '../test/support/test-database.js';
import { freePort, tcpListener } from '../test/fixtures/peers/net-fixtures.js';

const outageSeconds = Number(process.argv[2] ?? 600);
const services = Number(process.argv[3] ?? 1000);
const intervalSeconds = Number(process.argv[4] ?? 10);
const location = 'outage-bench';

const dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-outage-'));
const grpcPort = await freePort();
const statusPort = await freePort();
const listener = await tcpListener();
const agentToken = 'outage-bench-agent-token-0123456789abcdef';
let cp = await startTestControlPlane({ grpcPort, env: { AGENT_TOKEN: agentToken } });
const user = await cp.api.newUser('outage');
await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
for (let i = 0; i < services; i++) {
  await cp.api.post('/services', { name: `s${i}`, endpoint: listener.endpoint, check_type: 'TCP', check_interval_seconds: intervalSeconds, locations: [location] }, user.token);
}
const stored = async () => Number((await sql<{ n: string }>('select count(*) as n from check_results where organization_id = $1', [user.orgId]))[0]!.n);
const agent = startAgentProcess({ server: `127.0.0.1:${grpcPort}`, token: cp.running.agentToken, location, dataDir: path.join(dir, 'agent'), extra: ['--status-addr', `127.0.0.1:${statusPort}`, '--log-level', process.env.BENCH_AGENT_LOG ?? 'warn'] });
await poll(async () => (await stored()) >= services, { what: 'a first result for every service', timeoutMs: 120_000, intervalMs: 500 });

console.log(`checks/s: ${(services / intervalSeconds).toFixed(0)}; outage: ${outageSeconds} s`);
await cp.stop();
const outageStarted = Date.now();
await new Promise((r) => setTimeout(r, outageSeconds * 1000));
const spoolDir = path.join(dir, 'agent', 'spool');
const files = readdirSync(spoolDir).map((f) => path.join(spoolDir, f));
const spoolBytes = files.reduce((n, f) => n + statSync(f).size, 0);
const spooledResults = spooledResultCount(spoolDir);
console.log(`after ${((Date.now() - outageStarted) / 1000).toFixed(0)} s of outage: ${spooledResults} results in the spool, ${(spoolBytes / 1024 / 1024).toFixed(1)} MiB, ${((spoolBytes / spooledResults) * 10_000 / 1024 / 1024).toFixed(2)} MiB per 10,000 results`);

cp = await startTestControlPlane({ grpcPort, env: { AGENT_TOKEN: agentToken } });
const reconnected = Date.now();
// Drained: the spool holds no more than a second of new results. Steady results wait up to
// 500 ms for their batch (ADR 0013), so at 100 checks/s the spool is hardly ever empty.
const newResultsPerSecond = services / intervalSeconds;
const spoolDrained = async () => {
  const metrics = await (await fetch(`http://127.0.0.1:${statusPort}/metrics`)).text();
  if (process.env.BENCH_DEBUG) console.log(metrics.split('\n').filter((l) => l.startsWith('outpost_agent_spool_results') || l.startsWith('outpost_agent_connected')).join(' '));
  const held = /^outpost_agent_spool_results (\d+)$/m.exec(metrics)?.[1];
  return held !== undefined && Number(held) <= newResultsPerSecond;
};
await poll(spoolDrained, { what: 'the spool drained', timeoutMs: Number(process.env.BENCH_DRAIN_TIMEOUT_MS ?? 600_000), intervalMs: 200 }).catch((err) => {
  console.log(agent.output().slice(-5000));
  throw err;
});
console.log(`spool drained ${((Date.now() - reconnected) / 1000).toFixed(1)} s after the control plane came back`);
await agent.kill('SIGTERM');
const expected = listener.accepted();
const found = await stored();
const distinct = Number((await sql<{ n: string }>('select count(distinct id) as n from check_results where organization_id = $1', [user.orgId]))[0]!.n);
console.log(`expected ${expected} results (checks the target saw), found ${found} (${distinct} distinct), missing ${expected - found}`);

await cp.stop();
await listener.close();
await stopTestDatabase();
rmSync(dir, { recursive: true, force: true });
