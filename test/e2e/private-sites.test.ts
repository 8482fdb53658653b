// Two agents in two private networks (network namespaces): each checks a target only it can
// reach; the control plane reaches neither target, yet sees both services through its agents.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import WebSocket from 'ws';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';
import { createSite, netnsUnavailable, type Site } from '../fixtures/netns.js';
import { requireCapability } from '../fixtures/peers/require-peer.js';
import { freePort } from '../fixtures/peers/net-fixtures.js';

describe('e2e: agents in private networks', function () {
  this.timeout(120_000);
  const sites: Site[] = [];
  const children: ChildProcess[] = [];
  let cp: TestControlPlane;
  let user: TestUser;
  let dir: string;

  before(async function () {
    requireCapability(this, netnsUnavailable());
    dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-sites-'));
    cp = await startTestControlPlane({ env: { HOST: '0.0.0.0' } });
    user = await cp.api.newUser('sites');
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
    for (const site of sites) site.remove();
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const run = (site: Site, command: string, args: string[]) => {
    const child = site.spawn(command, args);
    children.push(child);
    return child;
  };
  const startTarget = async (site: Site, port: number) => {
    const child = run(site, process.execPath, [path.resolve('test/fixtures/site-target.mjs'), String(port)]);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    await poll(() => out.includes('ready'), { what: `the target in ${site.namespace}` });
    return child;
  };
  const stop = (child: ChildProcess) => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM')));

  it('checks each private target through the agent inside its network, GREEN then RED when it stops', async () => {
    const port = await freePort(); // free here, so the control plane's own loopback has nothing on it
    const feedMessages: { type: string; data: Record<string, unknown> }[] = [];
    const feed = new WebSocket(`${cp.baseUrl.replace('http', 'ws')}/api/v1/ws?token=${user.token}`);
    feed.on('message', (m) => feedMessages.push(JSON.parse(m.toString())));
    await new Promise((r) => feed.once('open', r));
    try {
      const services: Record<string, string> = {};
      const targets: Record<string, ChildProcess> = {};
      for (const [index, name] of ['a', 'b'].entries()) {
        const site = createSite(index);
        sites.push(site);
        targets[name] = await startTarget(site, port);
        run(site, process.execPath, ['--import', 'tsx', path.resolve('agent/src/cli.ts'), 'run', '--server', `${site.hostAddress}:${cp.running.grpcPort}`, '--insecure',
          '--token', cp.running.agentToken, '--location', `site-${name}`, '--data-dir', path.join(dir, name)]);
        const created = await cp.api.post('/services', { name: `private-${name}`, endpoint: `http://127.0.0.1:${port}/`, check_type: 'HTTP', check_interval_seconds: 3600, locations: [`site-${name}`] }, user.token);
        services[name] = created.body.id;
      }
      const statusOf = async (name: string) => (await cp.api.get(`/services/${services[name]}`, user.token)).body.status;
      for (const name of ['a', 'b']) await poll(async () => (await statusOf(name)) === 'GREEN', { what: `site ${name} GREEN`, timeoutMs: 30_000 });
      for (const name of ['a', 'b']) {
        expect(feedMessages.some((m) => m.type === 'check_result' && m.data.service_id === services[name] && m.data.location === `site-${name}`), `a live result from site ${name}`).to.equal(true);
      }
      // The control plane's own network cannot reach the targets.
      const direct = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2_000) }).then(() => 'answered', () => 'unreachable');
      expect(direct).to.equal('unreachable');

      await stop(targets.a!);
      await cp.api.post(`/services/${services.a}/check`, undefined, user.token);
      await poll(async () => (await statusOf('a')) === 'RED', { what: 'site a RED after its target stopped', timeoutMs: 20_000 });
      expect(await statusOf('b')).to.equal('GREEN');
      await poll(() => feedMessages.some((m) => m.type === 'service_status' && m.data.service_id === services.a && m.data.status === 'RED'), { what: 'the RED status on the feed' });
    } finally {
      feed.terminate();
    }
  });
});
