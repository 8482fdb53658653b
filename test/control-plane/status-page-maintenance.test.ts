// Maintenance announced on status pages (issue 42), across its announcement, start and end: a
// movable clock stands before the announcement period, inside it, during the window and after
// it; the public page shows it upcoming, then in progress with its services under maintenance
// (not down, and not making the page red), then in its history; the announcement job tells each
// phase once, however often it runs, and a webhook subscriber of the page hears each. (The
// job's counts include other tests' windows in the shared database: at least ours is asserted.)
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startHttpReceiver, type HttpReceiver } from '../fixtures/http-receiver.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { MovableClock } from '../support/movable-clock.js';

const HOUR = 3_600_000;

describe('status page maintenance', function () {
  this.timeout(60_000);
  const clock = new MovableClock();
  let cp: TestControlPlane;
  let agent: ScriptedAgent;
  let hooks: HttpReceiver;

  before(async () => {
    hooks = await startHttpReceiver();
    cp = await startTestControlPlane({ start: { clock }, env: { SUBSCRIBER_WEBHOOKS_ALLOW_PRIVATE: 'true' } });
    agent = await connectReadyAgent(cp.running);
  });
  after(async () => {
    agent?.close();
    await cp?.stop();
    await hooks?.close();
  });

  it('is upcoming from its announcement, in progress with its services under maintenance, then in the history; each phase told once', async () => {
    const u = await cp.api.newUser('sp-maint');
    const newService = async (name: string) => (await cp.api.post('/services', { name, endpoint: 'http://10.1.2.3/', check_type: 'HTTP', check_interval_seconds: 3600 }, u.token)).body.id as string;
    const db = await newService('Database');
    const web = await newService('Website');
    const page = (await cp.api.post('/status-pages', { slug: `maint-${randomUUID().slice(0, 8)}`, title: 'Acme', service_ids: [web, db] }, u.token)).body;
    expect((await cp.api.post(`/status-pages/${page.slug}/subscribe`, { webhook_url: `${hooks.url}/maint` }, undefined)).status).to.equal(202);
    // The clock jumps ahead of the outbox's timer; a round is run rather than awaited.
    const heard = async (event: string) => (await cp.running.runSubscriberDeliveries(), hooks.waitFor((r) => r.url === '/maint' && r.json?.event === event, `the ${event} webhook`));
    const other = await cp.api.newUser('sp-maint-other');
    const theirs = (await cp.api.post('/status-pages', { slug: `theirs-${randomUUID().slice(0, 8)}`, title: 'x' }, other.token)).body;

    const start = new Date(Math.ceil((Date.now() + 100 * HOUR) / HOUR) * HOUR);
    const end = new Date(start.getTime() + 2 * HOUR);
    const window = { name: 'Database upgrade', starts_at: start.toISOString(), ends_at: end.toISOString(), service_ids: [db], status_page_ids: [page.id] };
    expect((await cp.api.post('/maintenance-windows', { ...window, status_page_ids: [theirs.id] }, u.token)).status, "another organization's page").to.equal(404);
    expect((await cp.api.post('/maintenance-windows', { ...window, announce_hours_before: -1 }, u.token)).status).to.equal(400);
    const created = await cp.api.post('/maintenance-windows', window, u.token);
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ announce_hours_before: 72 });
    expect(created.body.status_page_ids).to.deep.equal([page.id]);

    const view = async () => (await cp.api.get(`/status-pages/${page.slug}/public`)).body;
    const at = async (instant: number) => {
      clock.set(new Date(instant));
      return cp.running.runMaintenanceAnnouncements();
    };

    await at(start.getTime() - 73 * HOUR);
    expect((await view()).maintenance).to.deep.equal([]);

    expect(await at(start.getTime() - 71 * HOUR)).to.be.at.least(1);
    // The database fails before the window: its alert opens, and shows until the window does.
    await cp.api.post('/alert-rules', { name: 'db down', severity: 'critical', service_id: db, condition: { statuses: ['RED'] } }, u.token);
    await agent.sendResults([{ serviceId: db, ok: false, responseTimeMs: 10, checkedAtMs: clock.now().getTime() - 1000 }]);
    expect((await view()).incidents.map((i: any) => [i.source, i.service_id])).to.deep.equal([['alert', db]]);
    expect(await cp.running.runMaintenanceAnnouncements(), 'told once').to.equal(0);
    expect((await heard('maintenance_scheduled')).json.maintenance).to.include({ id: created.body.id, title: 'Database upgrade', status: 'scheduled' });
    expect((await view()).maintenance).to.deep.equal([{ id: created.body.id, name: 'Database upgrade', status: 'upcoming', starts_at: start.toISOString(), ends_at: end.toISOString(), service_ids: [db] }]);

    expect(await at(start.getTime() + HOUR)).to.be.at.least(1);
    expect((await heard('maintenance_started')).json.maintenance).to.include({ status: 'in_progress', starts_at: start.toISOString() });
    await agent.sendResults([
      { serviceId: db, ok: false, responseTimeMs: 10, checkedAtMs: clock.now().getTime() - 1000 },
      { serviceId: web, ok: true, responseTimeMs: 10, checkedAtMs: clock.now().getTime() - 1000 },
    ]);
    const during = await view();
    expect(during.maintenance.map((m: any) => m.status)).to.deep.equal(['in_progress']);
    expect(during.services.map((s: any) => [s.name, s.status, s.under_maintenance])).to.deep.equal([['Website', 'GREEN', false], ['Database', 'RED', true]]);
    expect(during.overall_status, 'a service under maintenance is not down').to.equal('GREEN');
    expect(during.overall_message).to.equal('Maintenance is in progress');
    expect(during.incidents, 'a service under maintenance is not shown down through its alert').to.deep.equal([]);

    expect(await at(end.getTime() + HOUR)).to.be.at.least(1);
    expect(await cp.running.runMaintenanceAnnouncements()).to.equal(0);
    expect((await heard('maintenance_ended')).json.maintenance).to.include({ status: 'completed' });
    expect(hooks.requests.filter((r) => r.url === '/maint').map((r) => r.json.event), 'each phase once').to.deep.equal(['maintenance_scheduled', 'maintenance_started', 'maintenance_ended']);
    const after = await view();
    expect(after.maintenance).to.deep.equal([]);
    expect(after.overall_status).to.equal('RED');
    expect(after.incidents.map((i: any) => [i.source, i.service_id])).to.deep.equal([['alert', db]]);
    const history = (await cp.api.get(`/status-pages/${page.slug}/public/history`)).body;
    expect(history.items.map((i: any) => [i.type, i.name, i.status])).to.deep.equal([['maintenance', 'Database upgrade', 'completed']]);
  });

  it('announces each occurrence of a recurring window, and keeps the ended ones in the history', async () => {
    const u = await cp.api.newUser('sp-maint-rec');
    const page = (await cp.api.post('/status-pages', { slug: `rec-${randomUUID().slice(0, 8)}`, title: 'Acme' }, u.token)).body;
    clock.set('2031-03-03T12:00:00Z'); // a Monday
    const w = (await cp.api.post('/maintenance-windows', { name: 'Weekly patching', schedule: '0 2 * * 3', timezone: 'UTC', duration_minutes: 60, status_page_ids: [page.id], announce_hours_before: 24 }, u.token)).body;
    await cp.running.runMaintenanceAnnouncements();
    expect((await cp.api.get(`/status-pages/${page.slug}/public`)).body.maintenance, 'a day and more ahead: not yet announced').to.deep.equal([]);
    clock.set('2031-03-04T03:00:00Z');
    expect(await cp.running.runMaintenanceAnnouncements()).to.be.at.least(1);
    expect((await cp.api.get(`/status-pages/${page.slug}/public`)).body.maintenance.map((m: any) => m.status)).to.deep.equal(['upcoming']);
    clock.set('2031-03-05T02:30:00Z');
    expect(await cp.running.runMaintenanceAnnouncements()).to.be.at.least(1);
    const during = (await cp.api.get(`/status-pages/${page.slug}/public`)).body;
    expect(during.maintenance).to.deep.equal([{ id: w.id, name: 'Weekly patching', status: 'in_progress', starts_at: '2031-03-05T02:00:00.000Z', ends_at: '2031-03-05T03:00:00.000Z', service_ids: [] }]);
    clock.set('2031-03-05T04:00:00Z');
    expect(await cp.running.runMaintenanceAnnouncements()).to.be.at.least(1);
    expect(await cp.running.runMaintenanceAnnouncements(), 'told once').to.equal(0);
    const history = (await cp.api.get(`/status-pages/${page.slug}/public/history`)).body;
    expect(history.items.map((i: any) => [i.name, i.starts_at, i.ends_at])).to.deep.equal([['Weekly patching', '2031-03-05T02:00:00.000Z', '2031-03-05T03:00:00.000Z']]);
  });
});
