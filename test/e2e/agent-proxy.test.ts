// An agent that may only leave its network through an HTTP proxy (HTTPS_PROXY) reaches the
// control plane through a CONNECT tunnel.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { startConnectProxy, type ConnectProxy } from '../support/connect-proxy.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';

describe('e2e: agent behind an HTTP proxy', function () {
  this.timeout(60_000);
  let cp: TestControlPlane;
  let proxy: ConnectProxy;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-proxy-'));
    cp = await startTestControlPlane();
    proxy = await startConnectProxy();
  });
  after(async () => {
    await proxy?.close();
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tunnels its stream through the proxy', async () => {
    const location = `proxied-${process.pid}`;
    const agent = spawn(process.execPath, ['--import', 'tsx', path.resolve('agent/src/cli.ts'), 'run', '--server', `127.0.0.1:${cp.running.grpcPort}`, '--token', cp.running.agentToken, '--location', location, '--data-dir', dir], {
      env: { ...process.env, HTTPS_PROXY: `http://127.0.0.1:${proxy.port}`, NO_PROXY: '' },
      stdio: 'ignore',
    });
    try {
      const user = await cp.api.newUser('proxied');
      const s = (await cp.api.post('/services', { name: 'via-proxy', endpoint: `127.0.0.1:${cp.running.httpPort}`, check_type: 'TCP', locations: [location] }, user.token)).body;
      await poll(async () => (await cp.api.get(`/services/${s.id}`, user.token)).body.status === 'GREEN', { what: 'a result through the tunnel', timeoutMs: 30_000 });
      expect(proxy.requests.map((r) => r.target)).to.include(`127.0.0.1:${cp.running.grpcPort}`);
    } finally {
      agent.kill('SIGKILL');
    }
  });
});
