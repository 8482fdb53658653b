// The embedded database through a crash of the process: what the API answered as stored (a
// service, a heartbeat's ping and the result it made) is there after a SIGKILL and a restart
// on the same data folder. (A power loss is another matter: README, PGlite has no fsync.)
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { freePort } from '../fixtures/peers/net-fixtures.js';
import { ApiClient } from '../support/api-client.js';
import { startControlPlaneProcess, type ControlPlaneProcess } from '../support/control-plane-process.js';

describe('e2e: the embedded database through a SIGKILL', function () {
  this.timeout(240_000);
  let dataDir: string;
  let running: ControlPlaneProcess | undefined;
  let env: Record<string, string>;

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'outpost-embedded-crash-'));
    env = {
      DATABASE_URL: '',
      PORT: String(await freePort()),
      GRPC_PORT: String(await freePort()),
      HOST: '127.0.0.1',
      EMBEDDED_AGENT: 'false',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    };
  });
  after(async () => {
    await running?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every write it acknowledged', async () => {
    running = startControlPlaneProcess(env);
    await running.ready(180_000);
    const api = new ApiClient(running.baseUrl);
    const user = await api.newUser('embedded-crash');
    const service = await api.post('/services', { name: 'kept', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600 }, user.token);
    expect(service.status, service.text).to.equal(201);
    const heartbeat = await api.post('/heartbeats', { name: 'kept-job', interval_seconds: 3600 }, user.token);
    expect(heartbeat.status, heartbeat.text).to.equal(201);
    const ping = await api.request('POST', `/heartbeat/${heartbeat.body.key}`, { body: 'done', headers: { 'content-type': 'text/plain' } });
    expect(ping.status, ping.text).to.equal(200);

    expect(await running.kill('SIGKILL')).to.equal('SIGKILL');
    running = startControlPlaneProcess(env);
    await running.ready(180_000);

    const again = new ApiClient(running.baseUrl);
    const login = await again.post('/auth/login', { email: user.email, password: user.password });
    expect(login.status, login.text).to.equal(200);
    const token = login.body.token as string;
    expect((await again.get(`/services/${service.body.id}`, token)).body).to.include({ name: 'kept' });
    const checks = (await again.get(`/services/${heartbeat.body.service_id}/checks`, token)).body as { status: string }[];
    expect(checks.map((c) => c.status)).to.deep.equal(['GREEN']);
  });
});
