// Service dependencies: the depends_on API and its validation, alerts held while a dependency
// is RED and opened when it recovers, edges dropped with a deleted service, and status pages
// showing dependents as affected. Driven by results a scripted agent sends.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { sql } from '../support/sql.js';
import { startHttpReceiver, type HttpReceiver } from '../fixtures/http-receiver.js';

describe('service dependencies', () => {
  let cp: TestControlPlane;
  let agent: ScriptedAgent;
  let receiver: HttpReceiver;

  before(async () => {
    receiver = await startHttpReceiver();
    cp = await startTestControlPlane({ start: { retry: { maxAttempts: 5, baseDelayMs: 50 }, jobIntervalMs: 100 } });
    agent = await connectReadyAgent(cp.running);
  });
  after(async () => {
    agent?.close();
    await cp?.stop();
    await receiver?.close();
  });

  async function newUser(label: string) {
    const user = await cp.api.newUser(label);
    await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
    return user;
  }
  async function newService(user: TestUser, name: string, fields: Record<string, unknown> = {}) {
    const r = await cp.api.post('/services', { name, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', ...fields }, user.token);
    expect(r.status, r.text).to.equal(201);
    return r.body as { id: string; name: string; depends_on: string[]; suppressed_by: { id: string; name: string }[] };
  }
  async function webhook(user: TestUser) {
    const hook = `/deps-${randomUUID()}`;
    const channel = await cp.api.post('/notification-channels', { name: 'hook', channel_type: 'webhook', config: { url: `${receiver.url}${hook}` } }, user.token);
    expect(channel.status, channel.text).to.equal(201);
    return hook;
  }
  const everyServiceRule = async (user: TestUser) => expect((await cp.api.post('/alert-rules', { name: 'down', severity: 'critical' }, user.token)).status).to.equal(201);
  const fail = (serviceId: string) => agent.sendResults([{ serviceId, ok: false, message: 'connection refused' }]);
  const pass = (serviceId: string) => agent.sendResults([{ serviceId, ok: true, responseTimeMs: 5 }]);
  const alertsOf = async (u: TestUser, serviceId: string) => (await cp.api.get(`/alerts?status=all&service_id=${serviceId}`, u.token)).body as { message: string; status: string }[];
  const dependsOn = (u: TestUser, serviceId: string, ids: unknown) => cp.api.put(`/services/${serviceId}`, { depends_on: ids }, u.token);

  describe('depends_on', () => {
    it('defaults to [] and is answered by create, read, list and update, in the order given, repeats dropped', async () => {
      const u = await newUser('deps-crud');
      const db = await newService(u, 'db');
      const cache = await newService(u, 'cache');
      expect(db).to.include.keys('depends_on', 'suppressed_by');
      expect(db.depends_on).to.deep.equal([]);
      expect(db.suppressed_by).to.deep.equal([]);
      const api = await newService(u, 'api', { depends_on: [db.id, cache.id, db.id] });
      expect(api.depends_on).to.deep.equal([db.id, cache.id]);
      expect((await cp.api.get(`/services/${api.id}`, u.token)).body.depends_on).to.deep.equal([db.id, cache.id]);
      const listed = (await cp.api.get('/services', u.token)).body as { id: string; depends_on: string[] }[];
      expect(listed.find((s) => s.id === api.id)!.depends_on).to.deep.equal([db.id, cache.id]);
      const reordered = await dependsOn(u, api.id, [cache.id, db.id]);
      expect(reordered.status, reordered.text).to.equal(200);
      expect(reordered.body.depends_on).to.deep.equal([cache.id, db.id]);
      const renamed = await cp.api.put(`/services/${api.id}`, { name: 'api-2' }, u.token);
      expect(renamed.body.depends_on, 'a PUT without depends_on keeps it').to.deep.equal([cache.id, db.id]);
      const echoed = await cp.api.put(`/services/${api.id}`, { ...renamed.body, depends_on: [] }, u.token);
      expect(echoed.status, echoed.text).to.equal(200);
      expect(echoed.body.depends_on).to.deep.equal([]);
    });

    it('refuses what is not a list of service ids, the service itself, unknown and foreign ids, with 400 on depends_on', async () => {
      const u = await newUser('deps-invalid');
      const stranger = await newUser('deps-stranger');
      const theirs = await newService(stranger, 'theirs');
      const web = await newService(u, 'web');
      const unknown = randomUUID();
      const cases: [unknown, RegExp][] = [
        ['nope', /depends_on must be an array of service ids/],
        [['not-a-uuid'], /UUID/],
        [Array.from({ length: 51 }, () => randomUUID()), /at most 50/],
        [[web.id], /must not name the service itself/],
        [[unknown], new RegExp(`${unknown}.*not a service of this organization`)],
        [[theirs.id], new RegExp(`${theirs.id}.*not a service of this organization`)],
      ];
      for (const [ids, message] of cases) {
        const r = await dependsOn(u, web.id, ids);
        expect(r.status, JSON.stringify(ids).slice(0, 80)).to.equal(400);
        expect(r.body.error).to.match(message);
        expect(r.body.details[0].path).to.match(/^depends_on/);
      }
      const created = await cp.api.post('/services', { name: 'x', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', depends_on: [theirs.id] }, u.token);
      expect(created.status).to.equal(400);
      expect(created.body.details).to.deep.equal([{ path: 'depends_on', message: `names service ${theirs.id}, which is not a service of this organization` }]);
      expect((await cp.api.get('/services', u.token)).body, 'a refused create creates nothing').to.have.length(1);
      expect((await cp.api.get(`/services/${web.id}`, u.token)).body.depends_on).to.deep.equal([]);
    });

    it('refuses a cycle of two or three, naming it by service names and ids, and accepts a chain', async () => {
      const u = await newUser('deps-cycle');
      const db = await newService(u, 'db');
      const api = await newService(u, 'api', { depends_on: [db.id] });
      const web = await newService(u, 'web', { depends_on: [api.id] });
      expect(web.depends_on, 'web → api → db is a chain').to.deep.equal([api.id]);

      const two = await dependsOn(u, db.id, [api.id]);
      expect(two.status).to.equal(400);
      expect(two.body.error).to.equal(`depends_on would make a cycle: db (${db.id}) → api (${api.id}) → db (${db.id})`);
      expect(two.body.details[0].path).to.equal('depends_on');

      const three = await dependsOn(u, db.id, [web.id]);
      expect(three.status).to.equal(400);
      expect(three.body.error).to.equal(`depends_on would make a cycle: db (${db.id}) → web (${web.id}) → api (${api.id}) → db (${db.id})`);
      expect((await cp.api.get(`/services/${db.id}`, u.token)).body.depends_on, 'a refused list changes nothing').to.deep.equal([]);
    });

    it('lets only one of two concurrent changes that together make a cycle through', async () => {
      const u = await newUser('deps-race');
      const a = await newService(u, 'a');
      const b = await newService(u, 'b');
      for (let round = 0; round < 5; round++) {
        const replies = await Promise.all([dependsOn(u, a.id, [b.id]), dependsOn(u, b.id, [a.id])]);
        expect(replies.map((r) => r.status).sort()).to.deep.equal([200, 400]);
        await Promise.all([dependsOn(u, a.id, []), dependsOn(u, b.id, [])]);
      }
    });

    it('drops the edge when the service depended on is deleted', async () => {
      const u = await newUser('deps-delete');
      const db = await newService(u, 'db');
      const api = await newService(u, 'api', { depends_on: [db.id] });
      expect((await cp.api.del(`/services/${db.id}`, u.token)).status).to.equal(204);
      expect((await cp.api.get(`/services/${api.id}`, u.token)).body.depends_on).to.deep.equal([]);
    });
  });

  describe('alerts', () => {
    it('open nothing for a dependent failing while its dependency is RED, and say which dependency holds them', async () => {
      const u = await newUser('deps-held');
      const hook = await webhook(u);
      await everyServiceRule(u);
      const db = await newService(u, 'db');
      const api = await newService(u, 'api', { depends_on: [db.id] });
      await fail(db.id);
      expect(await alertsOf(u, db.id)).to.have.length(1);
      await fail(api.id);
      await fail(api.id);
      const held = (await cp.api.get(`/services/${api.id}`, u.token)).body;
      expect(held.status, 'the failure is stored and shown').to.equal('RED');
      expect(held.suppressed_by).to.deep.equal([{ id: db.id, name: 'db' }]);
      expect(await alertsOf(u, api.id)).to.deep.equal([]);
      const [planned] = await sql<{ n: number }>(
        `select count(*)::int as n from deliveries d join alerts a on a.id = d.alert_id where a.service_id = $1`,
        [api.id],
      );
      expect(planned!.n, 'nothing planned for the dependent').to.equal(0);
      await receiver.waitFor((q) => q.url === hook && q.json?.alert?.service_id === db.id, "the dependency's own alert");
    });

    it('open an alert for a failing dependent whose dependency is GREEN', async () => {
      const u = await newUser('deps-green');
      await everyServiceRule(u);
      const db = await newService(u, 'db');
      const api = await newService(u, 'api', { depends_on: [db.id] });
      await pass(db.id);
      await fail(api.id);
      const [alert] = await alertsOf(u, api.id);
      expect(alert).to.include({ status: 'firing' });
      expect(alert!.message).not.to.match(/suppressed/);
      expect((await cp.api.get(`/services/${api.id}`, u.token)).body.suppressed_by).to.deep.equal([]);
    });

    it('hold a dependent failing in the same batch that turns its dependency RED', async () => {
      const u = await newUser('deps-batch');
      await everyServiceRule(u);
      const db = await newService(u, 'db');
      const api = await newService(u, 'api', { depends_on: [db.id] });
      await agent.sendResults([
        { serviceId: api.id, ok: false },
        { serviceId: db.id, ok: false },
      ]);
      expect(await alertsOf(u, db.id)).to.have.length(1);
      expect(await alertsOf(u, api.id)).to.deep.equal([]);
    });

    it('open the held alert when the dependency recovers, saying what held it, and notify', async () => {
      const u = await newUser('deps-recover');
      const hook = await webhook(u);
      await everyServiceRule(u);
      const db = await newService(u, 'db');
      const api = await newService(u, 'api', { depends_on: [db.id] });
      await fail(db.id);
      await fail(api.id);
      expect(await alertsOf(u, api.id)).to.deep.equal([]);
      await pass(db.id);
      const [alert] = await alertsOf(u, api.id);
      expect(alert, 'opened when db recovered').to.include({ status: 'firing' });
      expect(alert!.message).to.match(/connection refused/);
      expect(alert!.message).to.match(/; was suppressed while db was RED$/);
      const [dbAlert] = await alertsOf(u, db.id);
      expect(dbAlert).to.include({ status: 'resolved' });
      await receiver.waitFor((q) => q.url === hook && q.json?.event === 'alert_fired' && q.json.alert.service_id === api.id, "the dependent's late alert");
    });

    it('open nothing when the dependent recovered before its dependency did, or another dependency is still RED', async () => {
      const u = await newUser('deps-quiet');
      await everyServiceRule(u);
      const db = await newService(u, 'db');
      const queue = await newService(u, 'queue');
      const api = await newService(u, 'api', { depends_on: [db.id] });
      const worker = await newService(u, 'worker', { depends_on: [db.id, queue.id] });
      await fail(db.id);
      await fail(queue.id);
      await fail(api.id);
      await fail(worker.id);
      await pass(api.id);
      await pass(db.id);
      expect(await alertsOf(u, api.id), 'api recovered meanwhile').to.deep.equal([]);
      expect(await alertsOf(u, worker.id), 'queue still holds worker').to.deep.equal([]);
      expect((await cp.api.get(`/services/${worker.id}`, u.token)).body.suppressed_by).to.deep.equal([{ id: queue.id, name: 'queue' }]);
      await pass(queue.id);
      const [alert] = await alertsOf(u, worker.id);
      expect(alert!.message).to.match(/; was suppressed while queue was RED$/);
    });

    it('leave an alert the dependent had open before its dependency turned RED as it is', async () => {
      const u = await newUser('deps-open');
      await everyServiceRule(u);
      const db = await newService(u, 'db');
      const api = await newService(u, 'api', { depends_on: [db.id] });
      await fail(api.id);
      await fail(db.id);
      await fail(api.id);
      const alerts = await alertsOf(u, api.id);
      expect(alerts.map((a) => a.status)).to.deep.equal(['firing']);
      await pass(api.id);
      expect((await alertsOf(u, api.id)).map((a) => a.status), 'it still resolves').to.deep.equal(['resolved']);
    });
  });

  describe('status pages', () => {
    it('show a service whose dependency is RED as affected by it', async () => {
      const u = await newUser('deps-page');
      const db = await newService(u, 'db');
      const api = await newService(u, 'api', { depends_on: [db.id] });
      await pass(api.id);
      const slug = `deps-${randomUUID().slice(0, 8)}`;
      const page = await cp.api.post('/status-pages', { slug, title: 'Status', service_ids: [api.id] }, u.token);
      expect(page.status).to.equal(201);
      const calm = (await cp.api.get(`/status-pages/${slug}/public`)).body;
      expect(calm.services[0]).to.deep.include({ affected: false, affected_by: [] });
      expect(calm.overall_message).to.equal('All systems operational');
      await fail(db.id);
      const affected = (await cp.api.get(`/status-pages/${slug}/public`)).body;
      expect(affected.services[0]).to.include({ name: 'api', status: 'GREEN' });
      expect(affected.services[0], 'a dependency the page does not list is not named').to.deep.include({ affected: true, affected_by: [] });
      expect(affected.overall_status).to.equal('GREEN');
      expect(affected.overall_message).to.match(/affected by an outage/);
      expect((await cp.api.put(`/status-pages/${page.body.id}`, { slug, title: 'Status', service_ids: [api.id, db.id] }, u.token)).status).to.equal(200);
      const both = (await cp.api.get(`/status-pages/${slug}/public`)).body;
      expect(both.services.find((s: { id: string }) => s.id === api.id)).to.deep.include({ affected: true, affected_by: [{ id: db.id, name: 'db' }] });
    });
  });
});
