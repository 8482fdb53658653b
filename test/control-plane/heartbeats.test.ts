// Heartbeats: pinged → GREEN; silent past interval + grace → RED with an alert delivered;
// pinged again → the alert resolves.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';
import { startHttpReceiver, type HttpReceiver } from '../fixtures/http-receiver.js';

describe('heartbeats', () => {
  let cp: TestControlPlane;
  let receiver: HttpReceiver;
  before(async () => {
    receiver = await startHttpReceiver();
    cp = await startTestControlPlane({ start: { jobIntervalMs: 100, retry: { maxAttempts: 3, baseDelayMs: 50 } } });
  });
  after(async () => {
    await cp?.stop();
    await receiver?.close();
  });

  it('goes GREEN on a ping, RED with an alert when it misses its deadline, and recovers on the next ping', async function () {
    this.timeout(30_000);
    const u = await cp.api.newUser('heartbeat');
    const path = `/hb-${randomUUID()}`;
    await cp.api.post('/notification-channels', { name: 'hook', channel_type: 'webhook', config: { url: `${receiver.url}${path}` } }, u.token);
    await cp.api.post('/alert-rules', { name: 'jobs', severity: 'warning' }, u.token);
    const created = await cp.api.post('/heartbeats', { name: 'nightly-backup', interval_seconds: 1, grace_seconds: 1 }, u.token);
    expect(created.status, created.text).to.equal(201);
    const hb = created.body;
    expect(hb).to.include({ name: 'nightly-backup', interval_seconds: 1, grace_seconds: 1, status: null, last_ping_at: null });
    expect(hb.ping_url).to.equal(`/api/v1/heartbeat/${hb.key}`);

    const ping = await cp.api.request('POST', `/heartbeat/${hb.key}`, { body: 'backup done, 42 GB', headers: { 'content-type': 'text/plain' } });
    expect(ping.status, ping.text).to.equal(200);
    expect((await cp.api.get(`/heartbeats/${hb.id}`, u.token)).body.status).to.equal('GREEN');
    const missed = await poll(async () => {
      const now = (await cp.api.get(`/heartbeats/${hb.id}`, u.token)).body;
      return now.status === 'RED' && now;
    }, { what: 'RED after the deadline', timeoutMs: 10_000 });
    expect(missed.status).to.equal('RED');
    const fired = await receiver.waitFor((q) => q.url === path && q.json?.event === 'alert_fired', 'the alert for the missed heartbeat');
    expect(fired.json.alert.title).to.equal('nightly-backup is RED');
    expect((await cp.api.get(`/services/${hb.service_id}/checks`, u.token)).body[0].message).to.match(/no ping within 2 s/);

    expect((await cp.api.get(`/heartbeat/${hb.key}`)).status).to.equal(200);
    await receiver.waitFor((q) => q.url === path && q.json?.event === 'alert_resolved', 'the resolve on the next ping');
  });

  it('records a failure on /fail, ignores /start for status, answers HEAD, and says 404 for unknown keys', async () => {
    const u = await cp.api.newUser('heartbeat-fail');
    const hb = (await cp.api.post('/heartbeats', { name: 'cron', interval_seconds: 3600 }, u.token)).body;
    expect(hb.grace_seconds).to.equal(60);
    expect((await cp.api.request('POST', `/heartbeat/${hb.key}/start`)).status).to.equal(200);
    expect((await cp.api.get(`/heartbeats/${hb.id}`, u.token)).body.status).to.equal(null);
    expect((await cp.api.request('POST', `/heartbeat/${hb.key}/fail`)).status).to.equal(200);
    expect((await cp.api.get(`/heartbeats/${hb.id}`, u.token)).body.status).to.equal('RED');
    expect((await cp.api.request('HEAD', `/heartbeat/${hb.key}`)).status).to.equal(200);
    expect((await cp.api.get(`/heartbeats/${hb.id}`, u.token)).body.status).to.equal('GREEN');
    for (const key of ['unknown-key', 'x'.repeat(100)]) expect((await cp.api.get(`/heartbeat/${key}`)).status).to.equal(404);
    expect((await cp.api.request('DELETE', `/heartbeat/${hb.key}`)).status).to.equal(405);
  });

  it('validates, updates, keeps organizations apart, and deletes with its service', async () => {
    const u = await cp.api.newUser('heartbeat-crud');
    const stranger = await cp.api.newUser('heartbeat-stranger');
    expect((await cp.api.post('/heartbeats', { name: 'x', interval_seconds: 0 }, u.token)).status).to.equal(400);
    expect((await cp.api.post('/heartbeats', { interval_seconds: 60 }, u.token)).status).to.equal(400);
    const hb = (await cp.api.post('/heartbeats', { name: 'etl', interval_seconds: 60 }, u.token)).body;
    const updated = await cp.api.put(`/heartbeats/${hb.id}`, { name: 'etl-v2', grace_seconds: 5 }, u.token);
    expect(updated.body).to.include({ name: 'etl-v2', grace_seconds: 5, interval_seconds: 60 });
    expect((await cp.api.put(`/services/${hb.service_id}`, { name: 'sneaky' }, u.token)).status).to.equal(400);
    expect((await cp.api.get(`/heartbeats/${hb.id}`, stranger.token)).status).to.equal(404);
    expect((await cp.api.del(`/heartbeats/${hb.id}`, u.token)).status).to.equal(204);
    expect((await cp.api.get(`/services/${hb.service_id}`, u.token)).status).to.equal(404);
  });
});
