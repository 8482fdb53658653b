// The dashboard's reads of the service list: GET /services/summary and GET /services/overview,
// fed by results from agents in two locations. The control plane's clock stands still, so the
// 24 hourly trend entries do not shift under the test at the turn of an hour.
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectScriptedAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';

const HOUR = 3_600_000;
const ROW_KEYS = ['id', 'name', 'check_type', 'endpoint', 'environment', 'tags', 'locations', 'status', 'paused', 'stale', 'last_result_at', 'flapping', 'last_checked_at', 'last_response_time_ms', 'location_statuses', 'trend'];

describe('services summary and overview', () => {
  const hour = Math.floor(Date.now() / HOUR) * HOUR;
  const clock = { now: () => new Date(hour + 30 * 60_000) };
  const [east, west] = ['east', 'west'].map((l) => `${l}-${process.pid}`) as [string, string];
  let cp: TestControlPlane;
  const agents: Record<string, ScriptedAgent> = {};
  let user: TestUser;
  const ids: Record<string, string> = {};

  before(async () => {
    cp = await startTestControlPlane({ start: { clock } });
    user = await cp.api.newUser('overview');
    await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
    for (const location of [east, west]) {
      agents[location] = await connectScriptedAgent(cp.running.grpcPort, cp.running.agentToken, location);
      await poll(() => agents[location]!.received.some((m) => m.payload?.$case === 'snapshot'), { what: `the snapshot of ${location}` });
    }
    const create = async (name: string, fields: Record<string, unknown>) => {
      const r = await cp.api.post('/services', { name, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', ...fields }, user.token);
      expect(r.status, r.text).to.equal(201);
      ids[name] = r.body.id;
    };
    await create('shop', { environment: 'production', tags: ['web', 'Checkout'], locations: [east, west] });
    await create('db', { environment: 'staging', tags: ['data'], locations: [east], check_type: 'TCP', endpoint: '127.0.0.1:9' });
    await create('queue', { environment: 'production', locations: [west], check_type: 'REDIS', endpoint: '127.0.0.1:9' });
    expect((await cp.api.post('/heartbeats', { name: 'nightly backup', interval_seconds: 86_400 }, user.token)).status).to.equal(201);

    await agents[east]!.sendResults([
      { serviceId: ids.shop, responseTimeMs: 100, checkedAtMs: hour + 1000 },
      { serviceId: ids.shop, responseTimeMs: 300, checkedAtMs: hour + 2000 },
      { serviceId: ids.shop, responseTimeMs: 50, checkedAtMs: hour - 2 * HOUR + 1000 },
      { serviceId: ids.shop, responseTimeMs: 999, checkedAtMs: hour - 25 * HOUR },
      { serviceId: ids.db, responseTimeMs: 1500, checkedAtMs: hour + 1000 },
    ]);
    await agents[west]!.sendResults([{ serviceId: ids.shop, ok: false, responseTimeMs: 41, checkedAtMs: hour + 3000 }]);
  });
  after(async () => {
    for (const a of Object.values(agents)) a.close();
    await cp?.stop();
  });

  describe('GET /services/summary', () => {
    it("counts the organization's services by status and lists the filters' values, sorted", async () => {
      const r = await cp.api.get('/services/summary', user.token);
      expect(r.status, r.text).to.equal(200);
      // The heartbeat is a service of the organization (GET /services lists it too); its internal type is no filter value.
      expect(r.body).to.deep.equal({
        total: 4,
        statuses: { GREEN: 0, YELLOW: 1, RED: 1, PENDING: 2 },
        tags: ['Checkout', 'data', 'heartbeat', 'web'],
        environments: ['production', 'staging'],
        locations: [east, west],
        check_types: ['HTTP', 'REDIS', 'TCP'],
      });
      expect(r.body.total).to.equal(Number((await cp.api.get('/services', user.token)).headers.get('x-total-count')));
    });

    it('answers zeros and empty lists for an organization without services', async () => {
      const empty = await cp.api.newUser('overview-empty');
      expect((await cp.api.get('/services/summary', empty.token)).body).to.deep.equal({
        total: 0, statuses: { GREEN: 0, YELLOW: 0, RED: 0, PENDING: 0 }, tags: [], environments: [], locations: [], check_types: [],
      });
    });

    it('reads another organization by org slug only for a member, and refuses other parameters', async () => {
      const stranger = await cp.api.newUser('overview-stranger');
      const slug = (await sql<{ slug: string }>('select slug from organizations where id = $1', [user.orgId]))[0]!.slug;
      expect((await cp.api.get(`/services/summary?org=${slug}`, stranger.token)).status).to.equal(403);
      expect((await cp.api.get(`/services/overview?org=${slug}`, stranger.token)).status).to.equal(403);
      expect((await cp.api.get(`/services/summary?org=${slug}`, user.token)).body.total).to.equal(4);
      expect((await cp.api.get('/services/summary?status=RED', user.token)).status).to.equal(400);
    });
  });

  describe('GET /services/overview', () => {
    it("answers each service's latest result per location and 24 hourly mean response times", async () => {
      const r = await cp.api.get('/services/overview?sort=status', user.token);
      expect(r.status, r.text).to.equal(200);
      expect(r.body.total).to.equal(4);
      expect(r.body.services.map((s: any) => [s.name, s.status])).to.deep.equal([['shop', 'RED'], ['db', 'YELLOW'], ['nightly backup', null], ['queue', null]]);
      const [shop, db, , queue] = r.body.services;
      expect(shop).to.have.all.keys(ROW_KEYS);
      expect(shop).to.include({ id: ids.shop, check_type: 'HTTP', environment: 'production', last_response_time_ms: 41 });
      expect(shop.location_statuses).to.deep.equal([
        { location: east, status: 'GREEN', checked_at: new Date(hour + 2000).toISOString(), response_time_ms: 300 },
        { location: west, status: 'RED', checked_at: new Date(hour + 3000).toISOString(), response_time_ms: 41 },
      ]);
      const expected = Array(24).fill(null);
      expected[23] = Math.round((100 + 300 + 41) / 3);
      expected[21] = 50;
      expect(shop.trend, 'oldest first, the current hour last; 25 hours ago is outside').to.deep.equal(expected);
      expect(db.trend[23]).to.equal(1500);
      expect(queue).to.include({ status: null, last_checked_at: null, last_response_time_ms: null });
      expect(queue.location_statuses).to.deep.equal([]);
      expect(queue.trend).to.deep.equal(Array(24).fill(null));
    });

    it('takes the filters, order and page of GET /services', async () => {
      const names = async (query: string) => {
        const r = await cp.api.get(`/services/overview?${query}`, user.token);
        expect(r.status, `${query}: ${r.text}`).to.equal(200);
        return { total: r.body.total, names: r.body.services.map((s: { name: string }) => s.name) };
      };
      expect(await names(`location=${west}`)).to.deep.equal({ total: 2, names: ['shop', 'queue'] });
      expect(await names('environment=production&status=PENDING')).to.deep.equal({ total: 1, names: ['queue'] });
      expect(await names('q=checkout&tag=web')).to.deep.equal({ total: 1, names: ['shop'] });
      expect(await names('sort=name&limit=2&offset=1')).to.deep.equal({ total: 4, names: ['nightly backup', 'queue'] });
      for (const q of ['limit=0', 'offset=-1', 'sort=size', 'colour=red']) expect((await cp.api.get(`/services/overview?${q}`, user.token)).status, q).to.equal(400);
    });

    it('is not taken for a service id, nor is the summary', async () => {
      expect((await cp.api.get('/services/overview', user.token)).body).to.have.keys('total', 'services');
      expect((await cp.api.get('/services/summary', user.token)).body).to.have.property('statuses');
      expect((await cp.api.get('/services/overview/checks', user.token)).status, 'still a service id there').to.equal(400);
    });
  });
});
