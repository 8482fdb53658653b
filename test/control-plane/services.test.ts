import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { CHECK_TYPES } from '../../shared/src/check-types.js';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { sql } from '../support/sql.js';

const SERVICE_KEYS = [
  'id', 'organization_id', 'name', 'description', 'environment', 'endpoint', 'check_type', 'check_interval_seconds',
  'timeout_seconds', 'status', 'tags', 'locations', 'last_checked_at', 'last_response_time_ms', 'paused', 'stale', 'last_result_at', 'flapping', 'created_at', 'updated_at',
];

const ENDPOINT_BY_FORMAT: Record<string, string> = {
  HTTP: 'http://127.0.0.1:9/', HTTPS: 'https://127.0.0.1:9/', WEBSOCKET: 'ws://127.0.0.1:9/', WS: 'wss://127.0.0.1:9/', MULTISTEP: 'http://127.0.0.1:9/',
  PING: '127.0.0.1', ICMP: 'localhost', DNS: 'example.com',
  LDAP: 'ldap://127.0.0.1:9', SIP: 'sip:127.0.0.1:9', MQTT: 'mqtt://127.0.0.1:9', AMQP: 'amqp://127.0.0.1:9/', NATS: 'nats://127.0.0.1:9',
  DOCKER: 'web', TRACEROUTE: '127.0.0.1', DOMAIN: 'example.com',
};
/** What a check type cannot run without: MULTISTEP its steps, UDP its datagram, RADIUS its secret and user. */
const REQUIRED_OPTIONS: Record<string, Record<string, unknown>> = {
  MULTISTEP: { steps: [{ name: 'health', url: '/health' }] },
  UDP: { send: 'ping' },
  RADIUS: { secret: 'testing123', username: 'probe' },
};
const endpointFor = (type: string) => ENDPOINT_BY_FORMAT[type] ?? '127.0.0.1:9';

describe('services routes', () => {
  let cp: TestControlPlane;
  before(async () => {
    cp = await startTestControlPlane();
  });
  after(() => cp?.stop());

  const create = (u: TestUser, fields: Record<string, unknown>) =>
    cp.api.post('/services', { name: 'svc', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', ...fields }, u.token);

  describe('POST /services', () => {
    it('answers 201 with every field and the defaults', async () => {
      const u = await cp.api.newUser('svc-create');
      const r = await create(u, {});
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.have.all.keys([...SERVICE_KEYS, 'options', 'depends_on', 'suppressed_by']);
      expect(r.body).to.deep.include({ depends_on: [], suppressed_by: [] });
      expect(r.body).to.include({ organization_id: u.orgId, check_type: 'HTTP', check_interval_seconds: 60, timeout_seconds: 10, status: null, description: null, environment: null, last_checked_at: null, last_response_time_ms: null });
      expect(r.body.tags).to.deep.equal([]);
      expect(r.body.locations).to.deep.equal(['local']);
      expect(r.body.created_at).to.match(/Z$/);
    });

    it('accepts all 34 check types in any case and normalises them to upper case', async () => {
      expect(CHECK_TYPES).to.have.length(34);
      const u = await cp.api.newUser('svc-types');
      await sql(`update organizations set plan = 'unlimited' where id = $1`, [u.orgId]);
      for (const type of CHECK_TYPES) {
        const r = await create(u, { check_type: type.toLowerCase(), endpoint: endpointFor(type), options: REQUIRED_OPTIONS[type] ?? {} });
        expect(r.status, `${type}: ${r.text}`).to.equal(201);
        expect(r.body.check_type).to.equal(type);
      }
    });

    const invalid: [string, Record<string, unknown>][] = [
      ['a missing name', { name: undefined }],
      ['an empty name', { name: '   ' }],
      ['a missing endpoint', { endpoint: undefined }],
      ['a missing check_type', { check_type: undefined }],
      ['an unsupported check_type', { check_type: 'GOPHER' }],
      ['a check_type that is not a string', { check_type: 7 }],
      ['an interval below 5', { check_interval_seconds: 4 }],
      ['an interval above 86400', { check_interval_seconds: 86401 }],
      ['a fractional interval', { check_interval_seconds: 10.5 }],
      ['an interval as a string', { check_interval_seconds: '60' }],
      ['a timeout below 1', { timeout_seconds: 0 }],
      ['a timeout above 120', { timeout_seconds: 121 }],
      ['tags that are not an array', { tags: 'a,b' }],
      ['a tag that is not a string', { tags: ['ok', 3] }],
      ['an empty locations list', { locations: [] }],
      ['an organization_id that is not a UUID', { organization_id: 'acme' }],
      ['an unknown field', { colour: 'blue' }],
      ['options that are not an object', { options: 'fast' }],
      ['an unknown option', { options: { warp_speed: true } }],
      ['a header value with a line break', { options: { headers: { 'x-team': 'sre\r\nx-injected: 1' } } }],
      ['a header name that is not a token', { options: { headers: { 'x team': 'sre' } } }],
      ['an HTTP endpoint without a scheme', { endpoint: '127.0.0.1:80' }],
      ['an HTTP endpoint with an ftp scheme', { endpoint: 'ftp://127.0.0.1/' }],
      ['a WebSocket endpoint with an http scheme', { check_type: 'WEBSOCKET', endpoint: 'http://127.0.0.1/' }],
      ['a TCP endpoint without a port', { check_type: 'TCP', endpoint: '127.0.0.1' }],
      ['a TCP endpoint with port 0', { check_type: 'TCP', endpoint: '127.0.0.1:0' }],
      ['a TCP endpoint with port 65536', { check_type: 'TCP', endpoint: '127.0.0.1:65536' }],
      ['a TCP endpoint with an unbracketed IPv6 address', { check_type: 'TCP', endpoint: '::1:80' }],
      ['a TCP endpoint that is a URL', { check_type: 'REDIS', endpoint: 'redis://127.0.0.1:6379' }],
      ['a PING endpoint with a port', { check_type: 'PING', endpoint: '127.0.0.1:80' }],
      ['a DNS endpoint that is a URL', { check_type: 'DNS', endpoint: 'http://example.com' }],
    ];
    for (const [what, fields] of invalid) {
      it(`answers 400 for ${what}`, async () => {
        const u = await cp.api.newUser('svc-invalid');
        const r = await create(u, fields);
        expect(r.status, r.text).to.equal(400);
        expect(r.body.error).to.be.a('string').and.not.empty;
        expect((await cp.api.get('/services', u.token)).body).to.deep.equal([]);
      });
    }

    it('accepts bracketed IPv6 for host:port types', async () => {
      const u = await cp.api.newUser('svc-ipv6');
      expect((await create(u, { check_type: 'TCP', endpoint: '[::1]:6379' })).status).to.equal(201);
    });

    it('refuses the 6th service of a free organization with 403', async () => {
      const u = await cp.api.newUser('svc-cap');
      for (let i = 0; i < 5; i++) expect((await create(u, { name: `s${i}` })).status).to.equal(201);
      const sixth = await create(u, { name: 's6' });
      expect(sixth.status).to.equal(403);
      expect(sixth.body.error).to.match(/free plan allows at most 5 services/);
    });

    it('creates exactly 5 of 20 concurrent creates on a fresh free organization', async () => {
      const u = await cp.api.newUser('svc-race');
      const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => create(u, { name: `race-${i}` })));
      const statuses = replies.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).to.have.length(5);
      expect(statuses.filter((s) => s === 403)).to.have.length(15);
      expect((await cp.api.get('/services', u.token)).body).to.have.length(5);
    });

    it('creates in another organization named by organization_id when the user is a member', async () => {
      const u = await cp.api.newUser('svc-multi');
      const other = await cp.api.newUser('svc-multi-other');
      await sql(`insert into memberships (organization_id, user_id, role) values ($1, $2, 'member')`, [other.orgId, u.userId]);
      const r = await create(u, { organization_id: other.orgId });
      expect(r.status, r.text).to.equal(201);
      expect(r.body.organization_id).to.equal(other.orgId);
      const slug = (await sql<{ slug: string }>('select slug from organizations where id = $1', [other.orgId]))[0]!.slug;
      const listed = await cp.api.get(`/services?org=${encodeURIComponent(slug)}`, u.token);
      expect(listed.status).to.equal(200);
      expect(listed.body.map((s: { id: string }) => s.id)).to.deep.equal([r.body.id]);
    });

    it('refuses organization_id and org of an organization the user is not in with 403', async () => {
      const u = await cp.api.newUser('svc-foreign');
      const stranger = await cp.api.newUser('svc-stranger');
      expect((await create(u, { organization_id: stranger.orgId })).status).to.equal(403);
      expect((await cp.api.get('/services?org=no-such-org-slug', u.token)).status).to.equal(403);
    });
  });

  describe('GET /services', () => {
    it('lists in creation order and filters by status, tag and check_type', async () => {
      const u = await cp.api.newUser('svc-list');
      const a = await create(u, { name: 'a', tags: ['edge', 'prod'] });
      const b = await create(u, { name: 'b', check_type: 'TCP', endpoint: '127.0.0.1:9', tags: ['prod'] });
      const all = await cp.api.get('/services', u.token);
      expect(all.body.map((s: { id: string }) => s.id)).to.deep.equal([a.body.id, b.body.id]);
      expect((await cp.api.get('/services?tag=edge', u.token)).body.map((s: { id: string }) => s.id)).to.deep.equal([a.body.id]);
      expect((await cp.api.get('/services?check_type=tcp', u.token)).body.map((s: { id: string }) => s.id)).to.deep.equal([b.body.id]);
      expect((await cp.api.get('/services?status=GREEN', u.token)).body).to.deep.equal([]);
      expect((await cp.api.get('/services?status=PURPLE', u.token)).status).to.equal(400);
    });
  });

  describe('GET /services filters, order and pages', () => {
    let u: TestUser;
    const ids: Record<string, string> = {};
    const names = async (query: string) => {
      const r = await cp.api.get(`/services?${query}`, u.token);
      expect(r.status, `${query}: ${r.text}`).to.equal(200);
      return { names: r.body.map((s: { name: string }) => s.name), total: r.headers.get('x-total-count') };
    };

    before(async () => {
      u = await cp.api.newUser('svc-filters');
      await sql(`update organizations set plan = 'unlimited' where id = $1`, [u.orgId]);
      const fields: [string, Record<string, unknown>][] = [
        ['web', { environment: 'production', tags: ['Frontend'], locations: ['paris', 'tokyo'], description: 'The 100% site' }],
        ['Api', { environment: 'production', tags: ['backend'], endpoint: 'http://api.internal:9/' }],
        ['db', { environment: 'staging', check_type: 'TCP', endpoint: 'db.internal:5432', locations: ['paris'] }],
        ['cache', { check_type: 'REDIS', endpoint: '127.0.0.1:6379' }],
      ];
      for (const [name, f] of fields) ids[name] = (await create(u, { name, ...f })).body.id;
      await sql(`update services set status = v.status from (values ($1::uuid, 'GREEN'), ($2::uuid, 'RED'), ($3::uuid, 'YELLOW')) as v (id, status) where services.id = v.id`, [
        ids.web, ids.Api, ids.db,
      ]);
    });

    it('answers X-Total-Count and keeps creation order by default', async () => {
      expect(await names('')).to.deep.equal({ names: ['web', 'Api', 'db', 'cache'], total: '4' });
      expect(await names('environment=production')).to.deep.equal({ names: ['web', 'Api'], total: '2' });
      expect(await names('q=nothing-matches')).to.deep.equal({ names: [], total: '0' });
    });

    it('filters by environment, location, PENDING status and text, each and combined', async () => {
      expect((await names('environment=production')).names).to.deep.equal(['web', 'Api']);
      expect((await names('location=paris')).names).to.deep.equal(['web', 'db']);
      expect((await names('location=local')).names).to.deep.equal(['Api', 'cache']);
      expect((await names('status=PENDING')).names).to.deep.equal(['cache']);
      expect((await names('q=API')).names, 'name and endpoint, any case').to.deep.equal(['Api']);
      expect((await names('q=internal')).names, 'endpoint').to.deep.equal(['Api', 'db']);
      expect((await names('q=frontEND')).names, 'a tag').to.deep.equal(['web']);
      expect((await names(`q=${encodeURIComponent('100%')}`)).names, 'description, % taken literally').to.deep.equal(['web']);
      expect((await names('q=_')).names, '_ taken literally').to.deep.equal([]);
      expect(await names('environment=production&status=RED')).to.deep.equal({ names: ['Api'], total: '1' });
      expect((await names('location=paris&check_type=tcp&q=db&status=YELLOW')).names).to.deep.equal(['db']);
      expect((await names('tag=backend&environment=staging')).names).to.deep.equal([]);
    });

    it('sorts by name (any case) or by status, worst first and pending last', async () => {
      expect((await names('sort=name')).names).to.deep.equal(['Api', 'cache', 'db', 'web']);
      expect((await names('sort=status')).names).to.deep.equal(['Api', 'db', 'web', 'cache']);
      expect((await names('sort=created_at')).names).to.deep.equal(['web', 'Api', 'db', 'cache']);
    });

    it('pages with limit and offset, X-Total-Count counting every match', async () => {
      expect(await names('sort=name&limit=2')).to.deep.equal({ names: ['Api', 'cache'], total: '4' });
      expect(await names('sort=name&limit=2&offset=2')).to.deep.equal({ names: ['db', 'web'], total: '4' });
      expect(await names('sort=name&offset=10')).to.deep.equal({ names: [], total: '4' });
      expect(await names('environment=production&limit=1&offset=1')).to.deep.equal({ names: ['Api'], total: '2' });
    });

    it('answers 400 for a bad limit, offset, sort, status or an unknown parameter', async () => {
      for (const q of ['limit=0', 'limit=1001', 'limit=ten', 'limit=1.5', 'offset=-1', 'offset=x', 'offset=1e300', 'sort=size', 'sort=NAME', 'status=pending', 'q=', 'environment=', 'location=a&location=b', 'colour=red']) {
        const r = await cp.api.get(`/services?${q}`, u.token);
        expect(r.status, q).to.equal(400);
        expect(r.body.error, q).to.be.a('string').and.not.empty;
      }
    });
  });

  describe('PUT /services/{id}', () => {
    it('changes only the fields sent and answers the full service', async () => {
      const u = await cp.api.newUser('svc-put');
      const s = (await create(u, { description: 'd', tags: ['x'], timeout_seconds: 7 })).body;
      const r = await cp.api.put(`/services/${s.id}`, { name: 'renamed' }, u.token);
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ name: 'renamed', description: 'd', timeout_seconds: 7, endpoint: s.endpoint, created_at: s.created_at });
      expect(r.body.tags).to.deep.equal(['x']);
    });

    it('validates like create, including the endpoint against the kept check_type', async () => {
      const u = await cp.api.newUser('svc-put-invalid');
      const s = (await create(u, {})).body;
      expect((await cp.api.put(`/services/${s.id}`, { timeout_seconds: 500 }, u.token)).status).to.equal(400);
      expect((await cp.api.put(`/services/${s.id}`, { endpoint: '127.0.0.1:80' }, u.token)).status).to.equal(400);
      expect((await cp.api.put(`/services/${s.id}`, { check_type: 'TCP' }, u.token)).status).to.equal(400);
      expect((await cp.api.put(`/services/${s.id}`, { check_type: 'TCP', endpoint: '127.0.0.1:80' }, u.token)).status).to.equal(200);
    });

    it('accepts a GET answer sent back whole', async () => {
      const u = await cp.api.newUser('svc-put-echo');
      const s = (await create(u, {})).body;
      const r = await cp.api.put(`/services/${s.id}`, { ...s, name: 'echoed' }, u.token);
      expect(r.status, r.text).to.equal(200);
      expect(r.body.name).to.equal('echoed');
    });
  });

  describe('DELETE /services/{id}', () => {
    it('answers 204 without a body, then the service is gone', async () => {
      const u = await cp.api.newUser('svc-del');
      const s = (await create(u, {})).body;
      const r = await cp.api.del(`/services/${s.id}`, u.token);
      expect(r.status).to.equal(204);
      expect(r.text).to.equal('');
      expect((await cp.api.get(`/services/${s.id}`, u.token)).status).to.equal(404);
      expect((await cp.api.del(`/services/${s.id}`, u.token)).status).to.equal(404);
    });
  });

  describe('organization isolation', () => {
    it("answers 404 for another organization's service on every route", async () => {
      const owner = await cp.api.newUser('iso-owner');
      const intruder = await cp.api.newUser('iso-intruder');
      const s = (await create(owner, {})).body;
      const t = intruder.token;
      const replies = await Promise.all([
        cp.api.get(`/services/${s.id}`, t),
        cp.api.put(`/services/${s.id}`, { name: 'mine now' }, t),
        cp.api.del(`/services/${s.id}`, t),
        cp.api.post(`/services/${s.id}/check`, undefined, t),
        cp.api.get(`/services/${s.id}/checks`, t),
        cp.api.get(`/services/${s.id}/uptime`, t),
        cp.api.get(`/services/${s.id}/metrics`, t),
      ]);
      expect(replies.map((r) => r.status)).to.deep.equal(Array(7).fill(404));
      expect((await cp.api.get('/services', t)).body).to.deep.equal([]);
      expect((await cp.api.get(`/services/${s.id}`, owner.token)).body.name).to.equal('svc');
    });

    it('answers 403 to a viewer who tries to change a service', async () => {
      const owner = await cp.api.newUser('iso-viewer-owner');
      const viewer = await cp.api.newUser('iso-viewer');
      await sql(`insert into memberships (organization_id, user_id, role) values ($1, $2, 'viewer')`, [owner.orgId, viewer.userId]);
      const s = (await create(owner, {})).body;
      expect((await cp.api.get(`/services/${s.id}`, viewer.token)).status).to.equal(200);
      expect((await cp.api.put(`/services/${s.id}`, { name: 'x' }, viewer.token)).status).to.equal(403);
      expect((await cp.api.del(`/services/${s.id}`, viewer.token)).status).to.equal(403);
    });
  });

  describe('POST /services/{id}/check', () => {
    it('answers 202 {"status":"check enqueued"}', async () => {
      const u = await cp.api.newUser('svc-check');
      const s = (await create(u, {})).body;
      const r = await cp.api.post(`/services/${s.id}/check`, undefined, u.token);
      expect(r.status).to.equal(202);
      expect(r.body).to.deep.equal({ status: 'check enqueued' });
      expect((await cp.api.post(`/services/${randomUUID()}/check`, undefined, u.token)).status).to.equal(404);
    });
  });

  describe('secret options', () => {
    it('masks passwords in answers, stores them encrypted, and keeps them when the mask is sent back', async () => {
      const u = await cp.api.newUser('svc-secret');
      const s = await create(u, { check_type: 'REDIS', endpoint: '127.0.0.1:6379', options: { password: 'hunter2-secret' } });
      expect(s.status, s.text).to.equal(201);
      expect(s.body.options.password).to.equal('********');
      const [row] = await sql<{ options: { password: string } }>('select options from services where id = $1', [s.body.id]);
      expect(row!.options.password).to.match(/^enc:v2:/).and.not.include('hunter2');
      await cp.api.put(`/services/${s.body.id}`, { options: { password: '********' } }, u.token);
      const [after] = await sql<{ options: { password: string } }>('select options from services where id = $1', [s.body.id]);
      expect(after!.options.password).to.equal(row!.options.password);
    });
  });
});
