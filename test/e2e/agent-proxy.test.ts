// An agent that may only leave its network through an HTTP proxy (HTTPS_PROXY) reaches the
// control plane through a CONNECT tunnel.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';

describe('e2e: agent behind an HTTP proxy', function () {
  this.timeout(60_000);
  let cp: TestControlPlane;
  let proxy: http.Server;
  const tunnels: string[] = [];
  let dir: string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-proxy-'));
    cp = await startTestControlPlane();
    proxy = http.createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req, client, head) => {
      tunnels.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstream = net.connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client).pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    proxy?.closeAllConnections();
    await new Promise((r) => proxy?.close(r));
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tunnels its stream through the proxy', async () => {
    const location = `proxied-${process.pid}`;
    const agent = spawn(process.execPath, ['--import', 'tsx', path.resolve('agent/src/cli.ts'), 'run', '--server', `127.0.0.1:${cp.running.grpcPort}`, '--token', cp.running.agentToken, '--location', location, '--data-dir', dir], {
      env: { ...process.env, HTTPS_PROXY: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, NO_PROXY: '' },
      stdio: 'ignore',
    });
    try {
      const user = await cp.api.newUser('proxied');
      const s = (await cp.api.post('/services', { name: 'via-proxy', endpoint: `127.0.0.1:${cp.running.httpPort}`, check_type: 'TCP', locations: [location] }, user.token)).body;
      await poll(async () => (await cp.api.get(`/services/${s.id}`, user.token)).body.status === 'GREEN', { what: 'a result through the tunnel', timeoutMs: 30_000 });
      expect(tunnels).to.include(`127.0.0.1:${cp.running.grpcPort}`);
    } finally {
      agent.kill('SIGKILL');
    }
  });
});
