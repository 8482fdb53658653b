import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';

const DAY = 86_400_000;

describe('status pages', () => {
  let cp: TestControlPlane;
  let agent: ScriptedAgent;

  before(async () => {
    cp = await startTestControlPlane();
    agent = await connectReadyAgent(cp.running);
  });
  after(async () => {
    agent?.close();
    await cp?.stop();
  });

  const slug = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;
  const newService = async (u: TestUser, name: string) =>
    (await cp.api.post('/services', { name, endpoint: 'http://10.1.2.3:8080/internal', check_type: 'HTTP', check_interval_seconds: 3600 }, u.token)).body.id as string;

  describe('CRUD', () => {
    it('creates, lists, reads, changes only what is sent, and deletes a page', async () => {
      const u = await cp.api.newUser('sp-crud');
      const a = await newService(u, 'api');
      const b = await newService(u, 'web');
      const s = slug('acme');
      const created = await cp.api.post('/status-pages', { slug: s.toUpperCase(), title: 'Acme status', service_ids: [b, a, b] }, u.token);
      expect(created.status).to.equal(201);
      expect(created.body).to.include({ slug: s, title: 'Acme status', public: true, description: null, organization_id: u.orgId, public_url: `/api/v1/status-pages/${s}/public` });
      expect(created.body.service_ids, 'in the order given, without repeats').to.deep.equal([b, a]);
      const id = created.body.id;

      expect((await cp.api.get('/status-pages', u.token)).body.map((p: { id: string }) => p.id)).to.deep.equal([id]);
      expect((await cp.api.get(`/status-pages/${id}`, u.token)).body).to.deep.equal(created.body);

      const renamed = await cp.api.put(`/status-pages/${id}`, { title: 'Acme', description: 'Our services' }, u.token);
      expect(renamed.status).to.equal(200);
      expect(renamed.body).to.include({ title: 'Acme', description: 'Our services', slug: s, public: true });
      expect(renamed.body.service_ids).to.deep.equal([b, a]);
      const echoed = await cp.api.put(`/status-pages/${id}`, { ...renamed.body, service_ids: [a], public: false }, u.token);
      expect(echoed.status, 'the object read may be sent back').to.equal(200);
      expect(echoed.body).to.include({ public: false });
      expect(echoed.body.service_ids).to.deep.equal([a]);

      await cp.api.del(`/services/${a}`, u.token);
      expect((await cp.api.get(`/status-pages/${id}`, u.token)).body.service_ids, 'a deleted service leaves the page').to.deep.equal([]);

      expect((await cp.api.del(`/status-pages/${id}`, u.token)).status).to.equal(204);
      expect((await cp.api.get(`/status-pages/${id}`, u.token)).status).to.equal(404);
      expect((await cp.api.del(`/status-pages/${id}`, u.token)).status).to.equal(404);
    });

    it('answers 400 for bad input, 404 for unknown services and 409 for a taken slug', async () => {
      const u = await cp.api.newUser('sp-bad');
      const other = await cp.api.newUser('sp-bad-other');
      const theirs = await newService(other, 'theirs');
      const s = slug('taken');
      expect((await cp.api.post('/status-pages', { slug: s, title: 'x' }, other.token)).status).to.equal(201);
      for (const body of [
        { title: 'no slug' },
        { slug: 'has space', title: 'x' },
        { slug: '-dash', title: 'x' },
        { slug: 'x'.repeat(64), title: 'x' },
        { slug: slug('ok') },
        { slug: slug('ok'), title: '  ' },
        { slug: slug('ok'), title: 'x', public: 'yes' },
        { slug: slug('ok'), title: 'x', service_ids: ['not-a-uuid'] },
        { slug: slug('ok'), title: 'x', colour: 'red' },
      ]) {
        const r = await cp.api.post('/status-pages', body, u.token);
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expect(r.body.error, JSON.stringify(body)).to.be.a('string');
      }
      expect((await cp.api.post('/status-pages', { slug: slug('ok'), title: 'x', service_ids: [theirs] }, u.token)).status, "another organization's service").to.equal(404);
      expect((await cp.api.post('/status-pages', { slug: slug('ok'), title: 'x', service_ids: [randomUUID()] }, u.token)).status).to.equal(404);
      const taken = await cp.api.post('/status-pages', { slug: s, title: 'x' }, u.token);
      expect(taken.status, 'slugs are public addresses, unique across organizations').to.equal(409);
      const mine = (await cp.api.post('/status-pages', { slug: slug('mine'), title: 'x' }, u.token)).body;
      expect((await cp.api.put(`/status-pages/${mine.id}`, { slug: s }, u.token)).status).to.equal(409);
      expect((await cp.api.put(`/status-pages/${mine.id}`, { title: '' }, u.token)).status).to.equal(400);
      expect((await cp.api.get('/status-pages/not-a-uuid', u.token)).status).to.equal(400);
    });

    it('lets viewers read only, and answers 404 for another organization\'s page', async () => {
      const owner = await cp.api.newUser('sp-roles');
      const intruder = await cp.api.newUser('sp-intruder');
      const page = (await cp.api.post('/status-pages', { slug: slug('roles'), title: 'x' }, owner.token)).body;
      const viewer = await cp.api.keyWithRole(owner, 'viewer');
      const member = await cp.api.keyWithRole(owner, 'member');
      expect((await cp.api.get(`/status-pages/${page.id}`, viewer)).status).to.equal(200);
      expect((await cp.api.post('/status-pages', { slug: slug('v'), title: 'x' }, viewer)).status).to.equal(403);
      expect((await cp.api.put(`/status-pages/${page.id}`, { title: 'y' }, viewer)).status).to.equal(403);
      expect((await cp.api.del(`/status-pages/${page.id}`, viewer)).status).to.equal(403);
      expect((await cp.api.put(`/status-pages/${page.id}`, { title: 'by a member' }, member)).status).to.equal(200);

      const replies = await Promise.all([
        cp.api.get(`/status-pages/${page.id}`, intruder.token),
        cp.api.put(`/status-pages/${page.id}`, { title: 'mine' }, intruder.token),
        cp.api.del(`/status-pages/${page.id}`, intruder.token),
      ]);
      expect(replies.map((r) => r.status)).to.deep.equal([404, 404, 404]);
      expect((await cp.api.get('/status-pages', intruder.token)).body).to.deep.equal([]);
      expect((await cp.api.get('/status-pages')).status).to.equal(401);
    });
  });

  describe('GET /status-pages/{slug}/public', () => {
    it('shows the services with their status and 90 daily uptime bars, the overall status and open incidents, without credentials', async () => {
      const u = await cp.api.newUser('sp-public');
      const api = await newService(u, 'API');
      const web = await newService(u, 'Website');
      await cp.api.post('/alert-rules', { name: 'down', severity: 'critical', service_id: api, condition: { statuses: ['RED'] } }, u.token);
      const now = Date.now();
      expect(
        await agent.sendResults([
          { serviceId: web, ok: true, responseTimeMs: 40, checkedAtMs: now - DAY },
          { serviceId: web, ok: true, responseTimeMs: 40, checkedAtMs: now - 60_000 },
          { serviceId: api, ok: true, responseTimeMs: 40, checkedAtMs: now - 120_000 },
          { serviceId: api, ok: false, responseTimeMs: 40, checkedAtMs: now - 60_000 },
        ]),
      ).to.equal(4);
      const s = slug('public');
      await cp.api.post('/status-pages', { slug: s, title: 'Acme status', description: 'All of Acme', service_ids: [web, api] }, u.token);

      const r = await cp.api.get(`/status-pages/${s}/public`);
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ slug: s, title: 'Acme status', description: 'All of Acme', overall_status: 'RED' });
      expect(r.body.services.map((x: { name: string; status: string }) => [x.name, x.status])).to.deep.equal([
        ['Website', 'GREEN'],
        ['API', 'RED'],
      ]);
      const [website, apiView] = r.body.services;
      expect(website.uptime_bars).to.have.length(90);
      const today = new Date(now).toISOString().slice(0, 10);
      const yesterday = new Date(now - DAY).toISOString().slice(0, 10);
      expect(website.uptime_bars.at(-1)).to.include({ date: today });
      const onYesterday = [now - DAY, now - 60_000].filter((t) => new Date(t).toISOString().slice(0, 10) === yesterday).length;
      expect(website.uptime_bars.at(-2)).to.include({ date: yesterday, total_checks: onYesterday, uptime_percentage: 100 });
      expect(website.uptime_bars[0]).to.deep.equal({ date: new Date(now - 89 * DAY).toISOString().slice(0, 10), total_checks: 0, successful_checks: 0, uptime_percentage: null });
      expect(website.uptime_percentage).to.equal(100);
      expect(apiView.uptime_percentage).to.equal(50);
      expect(r.body.incidents).to.have.length(1);
      expect(r.body.incidents[0]).to.include({ service_id: api, service_name: 'API', severity: 'critical', status: 'firing' });
      expect(r.text, 'endpoints stay private').to.not.include('10.1.2.3');
      expect(r.headers.get('cache-control')).to.match(/max-age=\d+/);
    });

    it('answers 404 for a private page, as for an unknown one', async () => {
      const u = await cp.api.newUser('sp-private');
      const s = slug('private');
      const page = (await cp.api.post('/status-pages', { slug: s, title: 'internal', public: false }, u.token)).body;
      const hidden = await cp.api.get(`/status-pages/${s}/public`);
      expect(hidden.status).to.equal(404);
      expect((await cp.api.get(`/status-pages/${slug('nobody')}/public`)).body).to.deep.equal(hidden.body);
      await cp.api.put(`/status-pages/${page.id}`, { public: true }, u.token);
      const shown = await cp.api.get(`/status-pages/${s}/public`);
      expect(shown.status).to.equal(200);
      expect(shown.body).to.include({ overall_status: null, overall_message: 'No services are listed on this page yet' });
      expect(shown.body.services).to.deep.equal([]);
      expect(shown.body.incidents).to.deep.equal([]);
    });
  });
});
