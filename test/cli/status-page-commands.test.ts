// `outpost incidents`, `outpost subscribers` and `outpost reports uptime`, run as their own
// process against a real control plane (its embedded agent checks a local TCP server, so the
// report has checks to count).
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http, { type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { TestUser } from '../support/api-client.js';
import { runCli } from '../support/cli-process.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';

const SLUG = `cli-status-${randomBytes(4).toString('hex')}`;

describe('outpost incidents, subscribers and reports', function () {
  this.timeout(60_000);
  let cp: TestControlPlane;
  let user: TestUser;
  let env: Record<string, string>;
  let pageId: string;
  let shopId: string;
  let tcp: net.Server;
  let hooks: Server;
  let hookUrl: string;

  const cli = async (...args: string[]) => {
    const run = await runCli(args, env);
    expect(run.code, `${args.join(' ')}: ${run.stderr}`).to.equal(0);
    return run.stdout;
  };

  before(async () => {
    // What the service checks, and where webhook subscribers hear of incidents.
    tcp = net.createServer((socket) => socket.end());
    tcp.listen(0, '127.0.0.1');
    await once(tcp, 'listening');
    hooks = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
    hooks.listen(0, '127.0.0.1');
    await once(hooks, 'listening');
    hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`;

    cp = await startTestControlPlane({ embeddedAgent: true, env: { SUBSCRIBER_WEBHOOKS_ALLOW_PRIVATE: 'true' } });
    user = await cp.api.newUser('cli-status');
    // Subscribers are for admins and owners.
    env = { OUTPOST_URL: cp.baseUrl, OUTPOST_API_KEY: await cp.api.keyWithRole(user, 'admin') };
    const shop = await cp.api.post('/services', { name: 'shop', check_type: 'TCP', endpoint: `127.0.0.1:${(tcp.address() as AddressInfo).port}`, check_interval_seconds: 5, tags: ['payments'] }, user.token);
    expect(shop.status, shop.text).to.equal(201);
    shopId = shop.body.id;
    const api = await cp.api.post('/services', { name: 'api', check_type: 'TCP', endpoint: '127.0.0.1:9', check_interval_seconds: 300 }, user.token);
    expect(api.status, api.text).to.equal(201);
    const page = await cp.api.post('/status-pages', { slug: SLUG, title: 'Shop status', service_ids: [shopId, api.body.id] }, user.token);
    expect(page.status, page.text).to.equal(201);
    pageId = page.body.id;
  });

  after(async () => {
    await cp?.stop();
    tcp?.close();
    hooks?.close();
  });

  describe('incidents', () => {
    it('opens an incident by page slug and service name, posts an update, resolves it, and lists it by status', async () => {
      // Backdated an hour, to the second.
      const started = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000).toISOString();
      const opened = JSON.parse(
        await cli('incidents', 'open', '--page', SLUG, '--title', 'Checkout slow', '--message', 'We are looking into it', '--impact', 'major', '--service', 'shop', '--started', started, '-o', 'json'),
      );
      expect(opened).to.deep.include({ status_page_id: pageId, title: 'Checkout slow', status: 'investigating', impact: 'major', starts_at: started, resolved_at: null });
      expect(opened.affected).to.deep.equal([{ service_id: shopId, service_name: 'shop', impact: 'major' }]);

      const updated = JSON.parse(await cli('incidents', 'update', opened.id, '--page', pageId, '--status', 'identified', '--message', 'A fix is rolling out', '-o', 'json'));
      expect(updated.status).to.equal('identified');
      expect(updated.updates.map((u: { status: string; message: string }) => [u.status, u.message])).to.deep.equal([
        ['investigating', 'We are looking into it'],
        ['identified', 'A fix is rolling out'],
      ]);

      const open = await cli('incidents', 'ls', '--page', SLUG);
      expect(open.split('\n')[0]).to.match(/^ID\s+STATUS\s+IMPACT\s+TITLE\s+AFFECTED\s+STARTED\s+RESOLVED\s+LATEST UPDATE$/);
      expect(open).to.contain(opened.id).and.to.contain('A fix is rolling out');

      const resolved = await cli('incidents', 'resolve', opened.id, '--page', SLUG);
      expect(resolved).to.contain('resolved').and.to.contain('This incident has been resolved.');
      const stored = (await cp.api.get(`/status-pages/${pageId}/incidents/${opened.id}`, user.token)).body;
      expect(stored.status).to.equal('resolved');
      expect(stored.resolved_at).to.be.a('string');
      expect(stored.updates).to.have.length(3);

      expect(await cli('incidents', 'ls', '--page', SLUG)).not.to.contain(opened.id);
      expect(JSON.parse(await cli('incidents', 'ls', '--page', SLUG, '--status', 'resolved', '-o', 'json')).map((i: { id: string }) => i.id)).to.deep.equal([opened.id]);
      // The public page shows it in its history.
      const history = (await cp.api.get(`/status-pages/${SLUG}/public/history`)).body;
      expect(history.items.map((i: { id: string }) => i.id)).to.include(opened.id);
    });

    it('refuses an unknown page and a status the API does not know, without sending anything', async () => {
      const unknown = await runCli(['incidents', 'ls', '--page', 'no-such-page'], env);
      expect(unknown.code).to.equal(1);
      expect(unknown.stderr).to.contain('no status page "no-such-page"');
      const status = await runCli(['incidents', 'update', pageId, '--page', SLUG, '--status', 'fixed', '--message', 'm'], env);
      expect(status.code).to.equal(2);
      expect(status.stderr).to.contain('investigating, identified, monitoring, resolved');
    });
  });

  describe('subscribers', () => {
    it('lists subscribers with their components, exports them as the API CSV, and removes one', async () => {
      for (const body of [{ webhook_url: hookUrl }, { webhook_url: `${hookUrl}?shop`, component_ids: [shopId] }]) {
        const subscribed = await cp.api.post(`/status-pages/${SLUG}/subscribe`, body);
        expect(subscribed.status, subscribed.text).to.equal(202);
      }
      const listed = JSON.parse(await cli('subscribers', 'ls', '--page', SLUG, '-o', 'json'));
      expect(listed.map((s: { webhook_url: string }) => s.webhook_url)).to.have.members([hookUrl, `${hookUrl}?shop`]);
      const table = await cli('subscribers', 'ls', '--page', SLUG);
      expect(table.split('\n')[0]).to.match(/^ID\s+TYPE\s+ADDRESS\s+COMPONENTS\s+CONFIRMED\s+SUBSCRIBED$/);
      const row = (url: string) => table.split('\n').find((l) => l.includes(`${url} `))!;
      expect(row(`${hookUrl}?shop`)).to.match(/\swebhook\s.*\sshop\s/);
      expect(row(hookUrl)).to.match(/\sall\s/);

      const csv = await cli('subscribers', 'export', '--page', pageId);
      const fromApi = await cp.api.get(`/status-pages/${pageId}/subscribers.csv`, user.token);
      expect(fromApi.status).to.equal(200);
      expect(csv).to.equal(fromApi.text);
      expect(csv.split('\r\n')[0]).to.equal('id,email,webhook_url,component_ids,confirmed,confirmed_at,created_at');

      const gone = listed.find((s: { webhook_url: string }) => s.webhook_url === hookUrl).id;
      expect(await cli('subscribers', 'rm', gone, '--page', SLUG)).to.contain(`removed subscriber ${gone}`);
      const left = (await cp.api.get(`/status-pages/${pageId}/subscribers`, user.token)).body;
      expect(left).to.have.length(1);
      expect(left[0].id).not.to.equal(gone);
    });
  });

  describe('reports uptime', () => {
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

    it('prints the report as a table, as the API JSON and as the API CSV, for a service or a tag', async () => {
      const range = `from=${day(-1)}&to=${day(0)}`;
      const report = await poll(
        async () => {
          const r = (await cp.api.get(`/reports/uptime?${range}&service_ids=${shopId}`, user.token)).body;
          return r.services?.[0]?.total_checks >= 2 ? r : undefined;
        },
        { timeoutMs: 30_000, what: 'two checks of shop in the report' },
      );
      const json = JSON.parse(await cli('reports', 'uptime', '--from', day(-1), '--to', day(0), '--service', 'shop', '-o', 'json'));
      expect(json.from).to.equal(report.from);
      expect(json.services.map((s: { name: string }) => s.name)).to.deep.equal(['shop']);
      expect(json.services[0].total_checks).to.be.at.least(report.services[0].total_checks);
      expect(json.services[0]).to.include({ failed_checks: 0, uptime_percentage: 100 });

      const table = await cli('reports', 'uptime', '--from', day(-1), '--to', day(0), '--tag', 'payments');
      expect(table).to.contain(`Uptime from ${report.from} to ${report.to}`);
      expect(table).to.match(/\nSERVICE\s+UPTIME\s+CHECKS\s+FAILED\s+DOWNTIME MIN\s+MEAN MS\s+P95 MS\s+INCIDENTS\n/);
      expect(table).to.match(/\nshop\s+100%\s+\d+\s+0\s+0\s/);
      expect(table).not.to.match(/\napi\s/);

      // A past range, so that both answers count the same checks.
      const past = `from=${day(-10)}&to=${day(-5)}`;
      const csv = await cli('reports', 'uptime', '--from', day(-10), '--to', day(-5), '-o', 'csv');
      const fromApi = await cp.api.get(`/reports/uptime?${past}&format=csv`, user.token);
      expect(csv).to.equal(fromApi.text);
      expect(csv.split('\r\n')[0]).to.equal('service_id,name,uptime_percentage,total_checks,failed_checks,downtime_minutes,mean_response_time_ms,p95_response_time_ms,incidents');
      expect(csv).to.contain(`${shopId},shop,`);
    });

    it('refuses --service with --tag as a usage error', async () => {
      const run = await runCli(['reports', 'uptime', '--service', 'shop', '--tag', 'payments'], env);
      expect(run.code).to.equal(2);
      expect(run.stderr).to.contain('give --service or --tag, not both');
    });
  });
});
