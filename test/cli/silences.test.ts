// `outpost silences` and `outpost alerts snooze`, run as their own process against a real
// control plane whose embedded agent checks a service at a closed port (so its alert fires).
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { runCli } from '../support/cli-process.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';

const HOUR_MS = 3_600_000;

describe('outpost silences and alerts snooze', function () {
  this.timeout(60_000);
  let cp: TestControlPlane;
  let user: TestUser;
  let env: Record<string, string>;
  let shopId: string;

  before(async () => {
    cp = await startTestControlPlane({ embeddedAgent: true });
    user = await cp.api.newUser('cli-silences');
    env = { OUTPOST_URL: cp.baseUrl, OUTPOST_API_KEY: await cp.api.keyWithRole(user, 'member') };
    expect((await cp.api.post('/alert-rules', { name: 'red', severity: 'critical', condition: { statuses: ['RED'] } }, user.token)).status).to.equal(201);
    const shop = await cp.api.post('/services', { name: 'shop', check_type: 'TCP', endpoint: '127.0.0.1:9', check_interval_seconds: 300 }, user.token);
    expect(shop.status, shop.text).to.equal(201);
    shopId = shop.body.id;
  });
  after(() => cp?.stop());

  it('creates a silence by service name and tag for a duration, lists it, and expires it', async () => {
    const asked = Date.now();
    const created = await runCli(['silences', 'create', '--service', 'shop', '--tag', 'payments', '--check-type', 'tcp', '--for', '4h', '--comment', 'deploy', '-o', 'json'], env);
    expect(created.code, created.stderr).to.equal(0);
    const silence = JSON.parse(created.stdout);
    expect(silence).to.deep.include({ state: 'active', comment: 'deploy', matchers: { service_ids: [shopId], tags: ['payments'], check_types: ['TCP'] } });
    expect(Date.parse(silence.ends_at) - asked).to.be.within(4 * HOUR_MS - 1_000, 4 * HOUR_MS + 30_000);

    const table = await runCli(['silences', 'ls'], env);
    expect(table.code, table.stderr).to.equal(0);
    expect(table.stdout.split('\n')[0]).to.match(/^ID\s+STATE\s+MATCHERS\s+STARTS\s+ENDS\s+COMMENT$/);
    expect(table.stdout).to.contain(silence.id).and.to.contain(`service_ids=${shopId} tags=payments check_types=TCP`);

    const expired = await runCli(['silences', 'expire', silence.id, '-o', 'json'], env);
    expect(expired.code, expired.stderr).to.equal(0);
    expect(JSON.parse(expired.stdout).state).to.equal('expired');
    expect((await runCli(['silences', 'ls'], env)).stdout).to.not.contain(silence.id);
    expect((await runCli(['silences', 'ls', '--state', 'expired'], env)).stdout).to.contain(silence.id);
  });

  it('snoozes an alert: its service is silenced for the duration and the alert shows it', async () => {
    const alert = await poll(async () => ((await cp.api.get('/alerts?status=firing', user.token)).body as { id: string; service_id: string }[]).find((a) => a.service_id === shopId), {
      timeoutMs: 20_000,
      what: 'the alert of shop',
    });
    const run = await runCli(['alerts', 'snooze', alert.id, '--for', '1h', '-o', 'json'], env);
    expect(run.code, run.stderr).to.equal(0);
    const silence = JSON.parse(run.stdout);
    expect(silence.matchers).to.deep.equal({ service_ids: [shopId] });
    expect(silence.comment).to.match(/^Snoozed from alert shop/);
    expect((await cp.api.get(`/alerts/${alert.id}`, user.token)).body.silenced_by).to.equal(silence.id);
  });

  it('refuses a silence without an end, with two ends, or with a duration it cannot read (usage errors)', async () => {
    for (const args of [[], ['--for', '1h', '--until', '2030-01-01T00:00:00Z'], ['--for', 'four hours']]) {
      const run = await runCli(['silences', 'create', '--tag', 'x', '--comment', 'c', ...args], env);
      expect(run.code, args.join(' ')).to.equal(2);
      expect(run.stderr).to.match(/--for|duration/);
    }
    const none = await runCli(['silences', 'create', '--for', '1h', '--comment', 'c'], env);
    expect(none.code).to.equal(1);
    expect(none.stderr).to.contain('must name at least one of service_ids, tags');
  });
});
