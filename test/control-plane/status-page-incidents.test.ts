// Written incidents of status pages (issue 42): the API and its roles, the timeline that sets
// the incident's status and resolution, the public page showing open incidents with their
// updates and a paged history of past ones, and how written incidents sit beside alerts.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';

const DAY = 86_400_000;

describe('status page incidents', () => {
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
  const newPage = async (u: TestUser, fields: Record<string, unknown>) => (await cp.api.post('/status-pages', { slug: slug('inc'), title: 'Acme status', ...fields }, u.token)).body;

  it('writes an incident, posts updates, resolves it, and keeps status and resolution true to the timeline', async () => {
    const u = await cp.api.newUser('inc-life');
    const api = await newService(u, 'API');
    const db = await newService(u, 'Database');
    const page = await newPage(u, { service_ids: [api, db] });
    const base = `/status-pages/${page.id}/incidents`;

    const backdated = new Date(Date.now() - 3_600_000).toISOString();
    const created = await cp.api.post(base, { title: 'Elevated API errors', status: 'investigating', impact: 'major', affected: [{ service_id: api }], message: 'We are looking into it.', starts_at: backdated }, u.token);
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ title: 'Elevated API errors', status: 'investigating', impact: 'major', resolved_at: null, status_page_id: page.id, alert_id: null });
    expect(Date.parse(created.body.starts_at)).to.equal(Date.parse(backdated));
    expect(created.body.affected).to.deep.equal([{ service_id: api, service_name: 'API', impact: 'major' }]);
    expect(created.body.updates.map((x: any) => [x.status, x.message])).to.deep.equal([['investigating', 'We are looking into it.']]);
    const id = created.body.id;

    const identified = await cp.api.post(`${base}/${id}/updates`, { status: 'identified', message: 'A bad deploy; rolling back.', affected: [{ service_id: api, impact: 'major' }, { service_id: db, impact: 'minor' }] }, u.token);
    expect(identified.status).to.equal(201);
    expect(identified.body).to.include({ status: 'identified', resolved_at: null });
    expect(identified.body.affected.map((a: any) => [a.service_name, a.impact])).to.deep.equal([['API', 'major'], ['Database', 'minor']]);

    const resolved = await cp.api.post(`${base}/${id}/updates`, { status: 'resolved', message: 'Fixed.' }, u.token);
    expect(resolved.body.status).to.equal('resolved');
    expect(resolved.body.resolved_at).to.equal(resolved.body.updates[2].created_at);
    expect(resolved.body.affected, 'an update without affected keeps the list').to.have.length(2);

    // Deleting the resolving update reopens the incident; editing a status does too.
    const reopened = await cp.api.del(`${base}/${id}/updates/${resolved.body.updates[2].id}`, u.token);
    expect(reopened.status).to.equal(200);
    expect(reopened.body).to.include({ status: 'identified', resolved_at: null });
    const edited = await cp.api.put(`${base}/${id}/updates/${reopened.body.updates[1].id}`, { message: 'A bad deploy; rolled back.', status: 'monitoring' }, u.token);
    expect(edited.status).to.equal(200);
    expect(edited.body.status).to.equal('monitoring');
    expect(edited.body.updates[1].message).to.equal('A bad deploy; rolled back.');

    const renamed = await cp.api.put(`${base}/${id}`, { ...edited.body, title: 'API errors', impact: 'minor' }, u.token);
    expect(renamed.status, 'the incident read may be sent back').to.equal(200);
    expect(renamed.body).to.include({ title: 'API errors', impact: 'minor', status: 'monitoring' });

    const first = renamed.body.updates[0].id;
    await cp.api.del(`${base}/${id}/updates/${renamed.body.updates[1].id}`, u.token);
    const last = await cp.api.del(`${base}/${id}/updates/${first}`, u.token);
    expect(last.status, 'the last update stays').to.equal(409);

    expect((await cp.api.get(base, u.token)).body.map((i: any) => i.id)).to.deep.equal([id]);
    expect((await cp.api.get(`${base}?status=resolved`, u.token)).body).to.deep.equal([]);
    expect((await cp.api.del(`${base}/${id}`, u.token)).status).to.equal(204);
    expect((await cp.api.get(`${base}/${id}`, u.token)).status).to.equal(404);
  });

  it('refuses bad input with 400, foreign ids with 404, viewers with 403 and other organizations with 404', async () => {
    const u = await cp.api.newUser('inc-bad');
    const other = await cp.api.newUser('inc-bad-other');
    const theirs = await newService(other, 'theirs');
    const page = await newPage(u, {});
    const base = `/status-pages/${page.id}/incidents`;
    for (const body of [
      { status: 'investigating', message: 'no title' },
      { title: 'x' },
      { title: 'x', message: 'm', status: 'sleeping' },
      { title: 'x', message: 'm', impact: 'huge' },
      { title: 'x', message: 'm', affected: [{ service_id: 'nope' }] },
      { title: 'x', message: 'm', starts_at: 'yesterday' },
      { title: 'x', message: 'm', starts_at: new Date(Date.now() + DAY).toISOString() },
      { title: 'x', message: 'm', colour: 'red' },
    ]) {
      const r = await cp.api.post(base, body, u.token);
      expect(r.status, JSON.stringify(body)).to.equal(400);
      expect(r.body.error).to.be.a('string');
    }
    expect((await cp.api.post(base, { title: 'x', message: 'm', affected: [{ service_id: theirs }] }, u.token)).status).to.equal(404);
    expect((await cp.api.post(base, { title: 'x', message: 'm', alert_id: randomUUID() }, u.token)).status).to.equal(404);
    expect((await cp.api.post(`/status-pages/${randomUUID()}/incidents`, { title: 'x', message: 'm' }, u.token)).status).to.equal(404);

    const incident = (await cp.api.post(base, { title: 'x', message: 'm' }, u.token)).body;
    const viewer = await cp.api.keyWithRole(u, 'viewer');
    expect((await cp.api.get(`${base}/${incident.id}`, viewer)).status).to.equal(200);
    expect((await cp.api.post(base, { title: 'x', message: 'm' }, viewer)).status).to.equal(403);
    expect((await cp.api.post(`${base}/${incident.id}/updates`, { status: 'resolved', message: 'm' }, viewer)).status).to.equal(403);
    expect((await cp.api.get(`${base}/${incident.id}`, other.token)).status).to.equal(404);
    expect((await cp.api.post(`${base}/${incident.id}/updates`, { status: 'resolved', message: 'm' }, other.token)).status).to.equal(404);
    expect((await cp.api.get(base)).status).to.equal(401);
  });

  it('shows open incidents with their timeline on the public page, and past ones in a paged history', async () => {
    const u = await cp.api.newUser('inc-public');
    const api = await newService(u, 'API');
    const hidden = await newService(u, 'Internal billing');
    const page = await newPage(u, { service_ids: [api] });
    const base = `/status-pages/${page.id}/incidents`;
    const open = (await cp.api.post(base, { title: 'Slow logins', impact: 'minor', affected: [{ service_id: api }, { service_id: hidden }], message: 'Investigating slow logins.' }, u.token)).body;
    await cp.api.post(`${base}/${open.id}/updates`, { status: 'monitoring', message: 'A fix is rolling out.' }, u.token);
    const past: string[] = [];
    for (let i = 0; i < 3; i++) {
      const started = new Date(Date.now() - (i + 1) * DAY).toISOString();
      const inc = (await cp.api.post(base, { title: `Past ${i}`, message: 'It happened.', starts_at: started }, u.token)).body;
      await cp.api.post(`${base}/${inc.id}/updates`, { status: 'resolved', message: 'Done.' }, u.token);
      past.push(inc.id);
    }

    const view = await cp.api.get(`/status-pages/${page.slug}/public`);
    expect(view.status).to.equal(200);
    const written = view.body.incidents.filter((i: any) => i.source === 'written');
    expect(written.map((i: any) => i.title)).to.deep.equal(['Slow logins']);
    expect(written[0]).to.include({ status: 'monitoring', impact: 'minor', resolved_at: null });
    expect(written[0].updates.map((x: any) => x.message)).to.deep.equal(['Investigating slow logins.', 'A fix is rolling out.']);
    expect(written[0].affected.map((a: any) => a.service_name), 'a service the page does not list is not named').to.deep.equal(['API']);
    expect(view.text).to.not.include('Internal billing');

    const first = await cp.api.get(`/status-pages/${page.slug}/public/history?limit=2`);
    expect(first.status).to.equal(200);
    expect(first.body.items.map((i: any) => [i.type, i.id])).to.deep.equal([['incident', past[0]], ['incident', past[1]]]);
    expect(first.body.items[0].updates.map((x: any) => x.status)).to.deep.equal(['investigating', 'resolved']);
    const second = await cp.api.get(`/status-pages/${page.slug}/public/history?limit=2&before=${encodeURIComponent(first.body.next_before)}`);
    expect(second.body.items.map((i: any) => i.id)).to.deep.equal([past[2]]);
    expect(second.body.next_before).to.equal(null);
    expect((await cp.api.get(`/status-pages/${page.slug}/public/history?limit=0`)).status).to.equal(400);
  });

  it('shows open alerts as incidents unless the page turns that off, and not beside a written incident opened from the alert or naming its service', async () => {
    const u = await cp.api.newUser('inc-auto');
    const api = await newService(u, 'API');
    await cp.api.post('/alert-rules', { name: 'down', severity: 'critical', service_id: api, condition: { statuses: ['RED'] } }, u.token);
    await agent.sendResults([{ serviceId: api, ok: false, responseTimeMs: 10, checkedAtMs: Date.now() - 1000 }]);
    const [alert] = (await cp.api.get('/alerts', u.token)).body;
    expect(alert).to.include({ service_id: api, status: 'firing' });
    const page = await newPage(u, { service_ids: [api] });
    const sources = async () => (await cp.api.get(`/status-pages/${page.slug}/public`)).body.incidents.map((i: any) => [i.source, i.title]);

    expect(await sources()).to.deep.equal([['alert', alert.title]]);
    const written = await cp.api.post(`/status-pages/${page.id}/incidents`, { title: 'API is down', alert_id: alert.id, affected: [{ service_id: api }], message: 'On it.' }, u.token);
    expect(written.body.alert_id).to.equal(alert.id);
    expect(await sources()).to.deep.equal([['written', 'API is down']]);
    await cp.api.del(`/status-pages/${page.id}/incidents/${written.body.id}`, u.token);
    expect(await sources()).to.deep.equal([['alert', alert.title]]);
    const naming = await cp.api.post(`/status-pages/${page.id}/incidents`, { title: 'Checking the API', affected: [{ service_id: api }], message: 'On it.' }, u.token);
    expect(await sources(), "a written incident naming the service speaks for its alert").to.deep.equal([['written', 'Checking the API']]);
    await cp.api.del(`/status-pages/${page.id}/incidents/${naming.body.id}`, u.token);
    await cp.api.put(`/status-pages/${page.id}`, { auto_incidents: false }, u.token);
    expect(await sources()).to.deep.equal([]);
  });
});
