// Benchmark: time from a failing result reaching the control plane (written on the agent
// stream) to the webhook receiver getting the alert, over N alerts at a steady rate.
// Runs a real control plane in-process on TEST_DATABASE_URL (PostgreSQL) or the embedded
// database, a scripted grpc agent, and an HTTP receiver, all on 127.0.0.1.
//
//   npx tsx bench/alert-to-webhook.ts [alerts=1000] [rate_per_second=100]
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestControlPlane } from '../test/support/control-plane-harness.js';
import { connectScriptedAgent } from '../test/support/grpc-test-agent.js';
import { poll } from '../test/support/poll.js';
import { sql } from '../test/support/sql.js';
import { stopTestDatabase } from '../test/support/test-database.js';

const total = Number(process.argv[2] ?? 1000);
const rate = Number(process.argv[3] ?? 100);

const sentAt = new Map<string, number>();
const latencies: number[] = [];
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const serviceId = JSON.parse(body).alert?.service_id as string | undefined;
    const started = serviceId ? sentAt.get(serviceId) : undefined;
    if (started !== undefined) latencies.push(performance.now() - started);
    res.end('ok');
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));

// The benchmark creates its services through the API faster than the API limit allows.
const cp = await startTestControlPlane({ start: { jobIntervalMs: 1_000 }, env: { API_RATE_LIMIT: 'off' } });
const user = await cp.api.newUser('bench');
await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
await cp.api.post('/alert-rules', { name: 'every failure', severity: 'critical' }, user.token);
await cp.api.post('/notification-channels', { name: 'hook', channel_type: 'webhook', config: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/` } }, user.token);
const serviceIds: string[] = [];
for (let i = 0; i < total; i++) {
  serviceIds.push((await cp.api.post('/services', { name: `bench-${i}`, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', locations: ['bench'] }, user.token)).body.id);
}
const agent = await connectScriptedAgent(cp.running.grpcPort, cp.running.agentToken, 'bench');
await poll(() => agent.received.some((m) => m.payload?.$case === 'snapshot'), { what: 'the snapshot' });

const started = performance.now();
await Promise.all(
  serviceIds.map(async (serviceId, i) => {
    await new Promise((r) => setTimeout(r, (i * 1000) / rate));
    sentAt.set(serviceId, performance.now());
    await agent.sendResults([{ serviceId, ok: false, message: 'connection refused' }]);
  }),
);
await poll(() => latencies.length >= total, { what: `${total} webhook deliveries`, timeoutMs: 120_000, intervalMs: 100 });
const elapsed = (performance.now() - started) / 1000;

latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(1);
console.log(`database: ${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}`);
console.log(`alerts: ${total} at ${rate}/s over ${elapsed.toFixed(1)} s`);
console.log(`failing result -> webhook received: p50 ${pct(50)} ms, p90 ${pct(90)} ms, p99 ${pct(99)} ms, max ${latencies.at(-1)!.toFixed(1)} ms`);

agent.close();
await cp.stop();
await stopTestDatabase();
receiver.close();
