import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';

describe('service history routes', () => {
  let cp: TestControlPlane;
  let agent: ScriptedAgent;
  let user: TestUser;
  let serviceId: string;
  const now = Date.now();
  const minutes = (n: number) => now - n * 60_000;

  before(async () => {
    cp = await startTestControlPlane();
    user = await cp.api.newUser('history');
    agent = await connectReadyAgent(cp.running);
    serviceId = (await cp.api.post('/services', { name: 'h', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, user.token)).body.id;
    await agent.sendResults([
      { serviceId, ok: true, responseTimeMs: 100, checkedAtMs: minutes(3) },
      { serviceId, ok: true, responseTimeMs: 1200, checkedAtMs: minutes(2) },
      { serviceId, ok: false, responseTimeMs: 50, checkedAtMs: minutes(1) },
      { serviceId, ok: true, responseTimeMs: 300, checkedAtMs: minutes(2 * 24 * 60) },
    ]);
  });
  after(async () => {
    agent?.close();
    await cp?.stop();
  });

  describe('GET /services/{id}/checks', () => {
    it('lists results newest first with the contract fields', async () => {
      const r = await cp.api.get(`/services/${serviceId}/checks`, user.token);
      expect(r.status).to.equal(200);
      expect(r.body.map((c: { status: string }) => c.status)).to.deep.equal(['RED', 'YELLOW', 'GREEN', 'GREEN']);
      expect(r.body[0]).to.have.all.keys('id', 'service_id', 'status', 'response_time_ms', 'message', 'location', 'agent_id', 'checked_at', 'details');
    });

    it('pages with limit and before, and filters by location', async () => {
      const first = (await cp.api.get(`/services/${serviceId}/checks?limit=2`, user.token)).body;
      expect(first).to.have.length(2);
      const rest = (await cp.api.get(`/services/${serviceId}/checks?before=${encodeURIComponent(first[1].checked_at)}`, user.token)).body;
      expect(rest.map((c: { id: string }) => c.id)).to.not.include.members(first.map((c: { id: string }) => c.id));
      expect(rest).to.have.length(2);
      expect((await cp.api.get(`/services/${serviceId}/checks?location=elsewhere`, user.token)).body).to.deep.equal([]);
    });

    it('answers 400 for a bad limit or before', async () => {
      for (const q of ['limit=0', 'limit=1001', 'limit=ten', 'before=yesterday', 'colour=red']) {
        expect((await cp.api.get(`/services/${serviceId}/checks?${q}`, user.token)).status, q).to.equal(400);
      }
    });
  });

  describe('GET /services/{id}/uptime', () => {
    it('counts GREEN and YELLOW as up over the last 24 h by default', async () => {
      const r = await cp.api.get(`/services/${serviceId}/uptime`, user.token);
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ service_id: serviceId, period: '24h', total_checks: 3, successful_checks: 2 });
      expect(r.body.uptime_percentage).to.be.closeTo(66.667, 0.001);
      expect(Date.parse(r.body.to) - Date.parse(r.body.from)).to.equal(24 * 3600_000);
    });

    it('widens to 7 days and refuses an unknown period', async () => {
      expect((await cp.api.get(`/services/${serviceId}/uptime?period=7d`, user.token)).body).to.include({ period: '7d', total_checks: 4 });
      expect((await cp.api.get(`/services/${serviceId}/uptime?period=1y`, user.token)).status).to.equal(400);
    });

    it('answers null uptime for a service without results', async () => {
      const empty = (await cp.api.post('/services', { name: 'e', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, user.token)).body.id;
      expect((await cp.api.get(`/services/${empty}/uptime`, user.token)).body).to.include({ uptime_percentage: null, total_checks: 0 });
    });
  });

  describe('GET /services/{id}/metrics', () => {
    it('answers the summary and bucketed points', async () => {
      const r = await cp.api.get(`/services/${serviceId}/metrics?period=24h&bucket=1m`, user.token);
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ service_id: serviceId, period: '24h', bucket: '1m', total_checks: 3 });
      expect(r.body.avg_response_time_ms).to.be.closeTo(450, 0.1);
      expect(r.body.p95_response_time_ms).to.be.a('number');
      expect(r.body.points).to.have.length(3);
      for (const p of r.body.points) {
        expect(p).to.have.all.keys('timestamp', 'total_checks', 'successful_checks', 'uptime_percentage', 'avg_response_time_ms', 'max_response_time_ms');
      }
    });

    it('chooses a bucket for the period when none is given, and refuses too many points', async () => {
      expect((await cp.api.get(`/services/${serviceId}/metrics?period=30d`, user.token)).body.bucket).to.equal('1d');
      expect((await cp.api.get(`/services/${serviceId}/metrics?period=90d&bucket=1m`, user.token)).status).to.equal(400);
      expect((await cp.api.get(`/services/${serviceId}/metrics?bucket=2m`, user.token)).status).to.equal(400);
    });
  });
});
