// GET /metrics after real traffic (REST requests, a scripted agent's batches, a WebSocket
// client, a failing webhook), parsed with a Prometheus text-format parser. (prom2javascript:
// parse-prometheus-text-format, the better known one, drops the labels of histograms.)
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { getMetricsFromIterator, type PromData, type PromHistogramData, type PromMetrics } from 'prom2javascript';
import WebSocket from 'ws';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, connectScriptedAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { freePort } from '../fixtures/peers/net-fixtures.js';

type Families = PromMetrics;
type Labels = Record<string, string>;

async function scrape(url: string, token?: string): Promise<Families> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  expect(res.status, text).to.equal(200);
  expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
  // prom-client writes NaN as `Nan` (Prometheus reads it: Go's ParseFloat ignores case) and
  // prom2javascript reads no NaN at all. Only event-loop statistics of an idle moment are NaN.
  const [nan, numbers] = partition(text.split('\n'), (line) => / Nan$/.test(line));
  expect(nan.filter((line) => !line.startsWith('nodejs_eventloop_lag_')), 'NaN samples').to.deep.equal([]);
  return getMetricsFromIterator(numbers[Symbol.iterator]());
}

function partition<T>(items: T[], test: (item: T) => boolean): [T[], T[]] {
  return [items.filter(test), items.filter((item) => !test(item))];
}

/** The series of a family whose labels include `labels`. */
function samples<T extends PromData | PromHistogramData = PromData>(families: Families, name: string, labels: Labels = {}): T[] {
  const family = families[name];
  if (!family) throw new Error(`no family ${name} in the scrape`);
  return (family.data as T[]).filter((m) => Object.entries(labels).every(([k, v]) => m.labels[k] === v));
}

/** The one value of a gauge or counter with these labels; undefined when there is no such series. */
function value(families: Families, name: string, labels: Labels = {}): number | undefined {
  const found = samples(families, name, labels);
  expect(found.length, `${name} ${JSON.stringify(labels)}`).to.be.at.most(1);
  return found[0]?.value;
}

const uniqueLocation = () => `metrics-${randomBytes(4).toString('hex')}`;

async function unlimitedUser(cp: TestControlPlane, label: string): Promise<TestUser> {
  const user = await cp.api.newUser(label);
  await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
  return user;
}

async function createService(cp: TestControlPlane, user: TestUser, name: string, location: string): Promise<string> {
  const r = await cp.api.post('/services', { name, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', locations: [location] }, user.token);
  expect(r.status, r.text).to.equal(201);
  return r.body.id;
}

describe('metrics', () => {
  describe('on the API port', () => {
    let cp: TestControlPlane;
    let user: TestUser;
    let agent: ScriptedAgent;
    const location = uniqueLocation();
    const services: { up?: string; down?: string } = {};
    const metricsUrl = () => `${cp.baseUrl}/metrics`;

    before(async () => {
      cp = await startTestControlPlane();
      user = await unlimitedUser(cp, 'metrics');
      agent = await connectReadyAgent(cp.running, location);
      services.up = await createService(cp, user, 'metrics-up', location);
      services.down = await createService(cp, user, 'metrics-down', location);
    });
    after(async () => {
      agent?.close();
      await cp?.stop();
    });

    it('times requests by method, route pattern and status, never by the raw path', async () => {
      const sent = 5;
      for (let i = 0; i < sent; i++) expect((await cp.api.get(`/services/${services.up}`, user.token)).status).to.equal(200);
      expect((await cp.api.get('/services/00000000-0000-4000-8000-000000000000', user.token)).status).to.equal(404);
      const families = await scrape(metricsUrl());
      expect(families.outpost_http_request_duration_seconds?.type).to.equal('histogram');
      const [ok] = samples<PromHistogramData>(families, 'outpost_http_request_duration_seconds', { method: 'GET', route: '/api/v1/services/:id', status: '200' });
      expect(ok?.count).to.be.at.least(sent);
      expect(ok?.sum).to.be.greaterThan(0);
      expect(ok?.buckets['+Inf']).to.equal(ok?.count);
      expect(samples(families, 'outpost_http_request_duration_seconds', { route: '/api/v1/services/:id', status: '404' })).to.have.length(1);
      const routes = samples(families, 'outpost_http_request_duration_seconds').map((m) => m.labels.route ?? '');
      expect(routes.filter((r) => r.includes(services.up!)), 'a route label holding an id').to.deep.equal([]);
    });

    it('counts ingested batches and results, and exports probe_success and probe_duration_seconds per service and location', async () => {
      const before = await scrape(metricsUrl());
      const batch = [
        { serviceId: services.up, ok: true, responseTimeMs: 120 },
        { serviceId: services.down, ok: false, responseTimeMs: 3000, message: 'connection refused' },
      ];
      expect(await agent.sendResults(batch)).to.equal(2);

      const after = await scrape(metricsUrl());
      const grew = (name: string, labels: Labels) => value(after, name, labels)! - value(before, name, labels)!;
      expect(grew('outpost_ingest_batches_total', { outcome: 'ok' })).to.be.at.least(1);
      expect(grew('outpost_ingest_results_total', { outcome: 'stored' })).to.be.at.least(2);
      expect(samples<PromHistogramData>(after, 'outpost_ingest_duration_seconds')[0]?.count).to.be.at.least(1);

      expect(value(after, 'probe_success', { service_id: services.up!, service_name: 'metrics-up', location })).to.equal(1);
      expect(value(after, 'probe_success', { service_id: services.down!, service_name: 'metrics-down', location })).to.equal(0);
      expect(value(after, 'probe_duration_seconds', { service_id: services.up!, location })).to.be.closeTo(0.12, 1e-9);
      expect(value(after, 'probe_duration_seconds', { service_id: services.down!, location })).to.be.closeTo(3, 1e-9);
    });

    it('counts a replayed batch as ignored results', async () => {
      const before = await scrape(metricsUrl());
      const result = { id: '6c1f0d2e-4d8b-4e51-9a57-1d2b3c4d5e6f', serviceId: services.up, checkedAtMs: Date.now() };
      await agent.sendResults([result]);
      expect(await agent.sendResults([result]), 'the replay stores nothing').to.equal(0);
      const after = await scrape(metricsUrl());
      const grew = (outcome: string) => value(after, 'outpost_ingest_results_total', { outcome })! - value(before, 'outpost_ingest_results_total', { outcome })!;
      expect(grew('stored')).to.equal(1);
      expect(grew('ignored')).to.equal(1);
    });

    it('counts the WebSocket clients of this replica', async () => {
      const socket = new WebSocket(`${cp.baseUrl.replace('http', 'ws')}/api/v1/ws?token=${encodeURIComponent(user.token)}`);
      try {
        await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
        await poll(async () => value(await scrape(metricsUrl()), 'outpost_websocket_clients') === 1, { what: 'one WebSocket client' });
      } finally {
        socket.close();
      }
      await poll(async () => value(await scrape(metricsUrl()), 'outpost_websocket_clients') === 0, { what: 'no WebSocket client' });
    });

    it('counts the agents online by location from the sessions of live replicas', async () => {
      expect(value(await scrape(metricsUrl()), 'outpost_agents_online', { location })).to.equal(1);
      const second = await connectScriptedAgent(cp.running.grpcPort, cp.running.agentToken, location);
      try {
        await poll(async () => value(await scrape(metricsUrl()), 'outpost_agents_online', { location }) === 2, { what: 'two agents online' });
      } finally {
        second.close();
      }
      await poll(async () => value(await scrape(metricsUrl()), 'outpost_agents_online', { location }) === 1, { what: 'one agent online again' });
    });

    it('reports the same agents online on another replica, which holds none of their streams', async () => {
      const other = await startTestControlPlane();
      try {
        const families = await scrape(`${other.baseUrl}/metrics`);
        expect(value(families, 'outpost_agents_online', { location })).to.equal(1);
      } finally {
        await other.stop();
      }
    });

    it('reports the outbox depth and delivery failures by channel type', async () => {
      const before = await scrape(metricsUrl());
      const deadPort = await freePort();
      const channel = await cp.api.post('/notification-channels', { name: 'dead hook', channel_type: 'webhook', config: { url: `http://127.0.0.1:${deadPort}/hook` } }, user.token);
      expect(channel.status, channel.text).to.equal(201);
      expect((await cp.api.post('/alert-rules', { name: 'metrics rule', severity: 'critical' }, user.token)).status).to.equal(201);
      await agent.sendResults([{ serviceId: services.up, ok: false, message: 'down now' }]);
      const failed = await poll(
        async () => {
          const families = await scrape(metricsUrl());
          return value(families, 'outpost_notification_delivery_failures_total', { channel_type: 'webhook' })! > value(before, 'outpost_notification_delivery_failures_total', { channel_type: 'webhook' })! && families;
        },
        { what: 'a failed webhook delivery' },
      );
      expect(value(failed, 'outpost_notification_delivery_attempts_total', { channel_type: 'webhook' })).to.be.at.least(1);
      // Retried later (5 s backoff), so it is still waiting in the outbox.
      expect(value(failed, 'outpost_outbox_pending_deliveries', { channel_type: 'webhook' })).to.be.at.least(1);
      expect(value(failed, 'outpost_notification_delivery_failures_total', { channel_type: 'sms' }), 'every channel type has a series').to.be.a('number');
    });

    it('reports the database pool in use, idle and waiting', async () => {
      const families = await scrape(metricsUrl());
      const inUse = value(families, 'outpost_db_pool_connections', { state: 'in_use' })!;
      const idle = value(families, 'outpost_db_pool_connections', { state: 'idle' })!;
      expect(inUse).to.be.at.least(0);
      expect(idle).to.be.at.least(0);
      expect(inUse + idle, 'connections the pool holds').to.be.within(1, 10);
      expect(value(families, 'outpost_db_pool_waiting')).to.be.at.least(0);
    });
  });

  describe('with a token and a listen address of their own', () => {
    let cp: TestControlPlane;
    let agent: ScriptedAgent;
    let metricsUrl: string;
    const token = randomBytes(16).toString('hex');

    before(async () => {
      cp = await startTestControlPlane({ env: { METRICS_ADDR: '127.0.0.1:0', METRICS_TOKEN: token, METRICS_MAX_SERVICES: '1' } });
      metricsUrl = `http://127.0.0.1:${cp.running.metricsPort}/metrics`;
    });
    after(async () => {
      agent?.close();
      await cp?.stop();
    });

    it('answers 401 in JSON without the token or with another, and the families with it', async () => {
      // The token alone, without the Bearer scheme, is refused too.
      for (const authorization of [undefined, 'Bearer wrong-token', token]) {
        const res = await fetch(metricsUrl, { headers: authorization ? { authorization } : {} });
        expect(res.status, String(authorization)).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.match(/^Bearer/);
        expect(await res.json()).to.include({ code: 'UNAUTHENTICATED' });
      }
      const families = await scrape(metricsUrl, token);
      expect(Object.keys(families)).to.include.members(['outpost_http_request_duration_seconds', 'outpost_agents_online', 'probe_success']);
    });

    it('serves /metrics on its own address only', async () => {
      const onApiPort = await fetch(`${cp.baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(await onApiPort.text()).to.not.include('# TYPE');
      const other = await fetch(`http://127.0.0.1:${cp.running.metricsPort}/api/v1/health`);
      expect(other.status).to.equal(404);
      await other.body?.cancel();
    });

    it('exports at most METRICS_MAX_SERVICES services and counts the others', async () => {
      const location = uniqueLocation();
      const user = await unlimitedUser(cp, 'metrics-cap');
      agent = await connectReadyAgent(cp.running, location);
      const ids = [await createService(cp, user, 'cap-a', location), await createService(cp, user, 'cap-b', location)];
      expect(await agent.sendResults(ids.map((serviceId) => ({ serviceId })))).to.equal(2);
      const families = await scrape(metricsUrl, token);
      const exported = new Set(samples(families, 'probe_success').map((m) => m.labels.service_id));
      expect(exported.size).to.equal(1);
      expect(value(families, 'outpost_metrics_services_omitted')).to.be.at.least(1);
    });
  });

  describe('with the rollup folding job held back', () => {
    let cp: TestControlPlane;
    before(async () => {
      // Background jobs an hour apart: only the test folds the backlog.
      cp = await startTestControlPlane({ start: { jobIntervalMs: 3_600_000 } });
    });
    after(async () => {
      await cp?.stop();
    });

    it('reports the ingested batches waiting in the rollup backlog', async () => {
      const backlog = async () => value(await scrape(`${cp.baseUrl}/metrics`), 'outpost_rollup_backlog_batches');
      // Rows that control planes of earlier tests stopped before folding.
      await cp.running.settleRollups();
      expect(await backlog()).to.equal(0);
      await sql(`insert into rollup_backlog (results) values ('[]')`);
      expect(await backlog()).to.equal(1);
      await cp.running.settleRollups();
      expect(await backlog()).to.equal(0);
    });
  });

  describe('with a token on the API port, and METRICS_PER_SERVICE=off', () => {
    let cp: TestControlPlane;
    const token = randomBytes(16).toString('hex');
    before(async () => {
      cp = await startTestControlPlane({ env: { METRICS_TOKEN: token, METRICS_PER_SERVICE: 'off' } });
    });
    after(async () => {
      await cp?.stop();
    });

    it('answers 401 in JSON without the token', async () => {
      const res = await fetch(`${cp.baseUrl}/metrics`);
      expect(res.status).to.equal(401);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(await res.json()).to.include({ code: 'UNAUTHENTICATED' });
    });

    it('leaves out the per-service families and keeps the others', async () => {
      const names = Object.keys(await scrape(`${cp.baseUrl}/metrics`, token));
      expect(names).to.include.members(['outpost_agents_online', 'outpost_outbox_pending_deliveries']);
      expect(names).to.not.include.members(['probe_success']);
      expect(names).to.not.include.members(['probe_duration_seconds']);
    });
  });
});
