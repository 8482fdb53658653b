// Benchmark P4: how long a failing result takes to reach people. A real control plane
// (in-process, on TEST_DATABASE_URL or the embedded database), a scripted gRPC agent, a webhook
// receiver and a WebSocket client, all on 127.0.0.1. Two phases:
//   steady: one failing result per service at a steady rate; time from the result written on
//           the agent stream to the webhook received, and to the alert_fired event on the feed;
//   outage: every service fails at once (the agent sends the results in its batches of 500);
//           time until every alert's webhook has arrived.
//
//   npx tsx bench/alert-to-webhook.ts [--full]   (quick: 300 at 100/s and an outage of 300;
//                                                full: 1000 at 100/s and an outage of 1000)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { startTestControlPlane } from '../test/support/control-plane-harness.js';
import { connectScriptedAgent } from '../test/support/grpc-test-agent.js';
import { poll } from '../test/support/poll.js';
import { sql } from '../test/support/sql.js';
import { stopTestDatabase } from '../test/support/test-database.js';
import { fullSize, percentile, report } from './support/report.js';

const steadyCount = fullSize ? 1000 : 300;
const outageCount = fullSize ? 1000 : 300;
const rate = 100;
const AGENT_BATCH = 500;

const sentAt = new Map<string, number>();
const toWebhook = new Map<string, number>();
const toSocket = new Map<string, number>();
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const serviceId = JSON.parse(body).alert?.service_id as string | undefined;
    const started = serviceId ? sentAt.get(serviceId) : undefined;
    if (serviceId && started !== undefined && !toWebhook.has(serviceId)) toWebhook.set(serviceId, performance.now() - started);
    res.end('ok');
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));

// The benchmark creates its services through the API faster than the API limit allows.
const cp = await startTestControlPlane({ start: { jobIntervalMs: 1_000 }, env: { API_RATE_LIMIT: 'off' } });
try {
  const user = await cp.api.newUser('bench');
  await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
  await cp.api.post('/alert-rules', { name: 'every failure', severity: 'critical' }, user.token);
  await cp.api.post('/notification-channels', { name: 'hook', channel_type: 'webhook', config: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/` } }, user.token);
  const services = async (n: number, prefix: string) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await cp.api.post('/services', { name: `${prefix}-${i}`, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', locations: ['bench'] }, user.token)).body.id);
    return ids;
  };
  const steady = await services(steadyCount, 'steady');
  const outage = await services(outageCount, 'outage');

  const socket = new WebSocket(`${cp.baseUrl.replace('http', 'ws')}/api/v1/ws?token=${encodeURIComponent(user.token)}`);
  socket.on('message', (data) => {
    const event = JSON.parse(data.toString()) as { type: string; data: { service_id?: string } };
    const serviceId = event.data.service_id;
    const started = serviceId ? sentAt.get(serviceId) : undefined;
    if (event.type === 'alert_fired' && serviceId && started !== undefined && !toSocket.has(serviceId)) toSocket.set(serviceId, performance.now() - started);
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));

  const agent = await connectScriptedAgent(cp.running.grpcPort, cp.running.agentToken, 'bench');
  await poll(() => agent.received.some((m) => m.payload?.$case === 'snapshot'), { what: 'the snapshot' });

  // Steady: each service's failing result on its own, at `rate` per second.
  await Promise.all(
    steady.map(async (serviceId, i) => {
      await new Promise((r) => setTimeout(r, (i * 1000) / rate));
      sentAt.set(serviceId, performance.now());
      await agent.sendResults([{ serviceId, ok: false, message: 'connection refused' }]);
    }),
  );
  const arrived = (ids: string[], seen: Map<string, number>) => ids.every((id) => seen.has(id));
  await poll(() => arrived(steady, toWebhook) && arrived(steady, toSocket), { what: `${steadyCount} webhook deliveries and events`, timeoutMs: 120_000, intervalMs: 50 });
  const sorted = (ids: string[], seen: Map<string, number>) => ids.map((id) => seen.get(id)!).sort((a, b) => a - b);
  const webhook = sorted(steady, toWebhook);
  const feed = sorted(steady, toSocket);
  console.log(`steady: ${steadyCount} failing results at ${rate}/s; webhook p50 ${percentile(webhook, 50).toFixed(1)} ms, p99 ${percentile(webhook, 99).toFixed(1)} ms; WebSocket p50 ${percentile(feed, 50).toFixed(1)} ms, p99 ${percentile(feed, 99).toFixed(1)} ms`);
  report({ id: 'P4a', what: `failing result -> webhook, p99 at ${rate}/s`, ours: percentile(webhook, 99), unit: 'ms', reference: null, goal: '≤ 250 ms', met: percentile(webhook, 99) <= 250 });
  report({ id: 'P4b', what: `failing result -> WebSocket alert_fired, p99 at ${rate}/s`, ours: percentile(feed, 99), unit: 'ms', reference: null, goal: '≤ 250 ms', met: percentile(feed, 99) <= 250 });

  // Outage: every service fails at once; the agent sends them in its full batches.
  const outageStart = performance.now();
  const batches: Promise<number>[] = [];
  for (let i = 0; i < outage.length; i += AGENT_BATCH) {
    const chunk = outage.slice(i, i + AGENT_BATCH);
    for (const id of chunk) sentAt.set(id, outageStart);
    batches.push(agent.sendResults(chunk.map((serviceId) => ({ serviceId, ok: false, message: 'connection refused' }))));
  }
  await Promise.all(batches);
  await poll(() => arrived(outage, toWebhook), { what: `${outageCount} outage webhooks`, timeoutMs: 120_000, intervalMs: 20 });
  const all = Math.max(...outage.map((id) => toWebhook.get(id)!));
  report({ id: 'P4c', what: `outage of ${outageCount} services -> every webhook delivered`, ours: all / 1000, unit: 's', reference: null, goal: '≤ 5 s (1,000 services)', met: all <= 5000 });
  console.log(`database: ${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}`);
  agent.close();
  socket.close();
} finally {
  await cp.stop();
  await stopTestDatabase();
  receiver.close();
}
