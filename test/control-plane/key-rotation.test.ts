// Rotating the JWT secret and the data key, as an operator would after a leak: with the
// admin commands between two runs of the control plane on one data folder, stored secrets
// still open (agents get them in the clear, channels show their last characters), tokens
// signed with the old secret are refused, and people sign in again.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectScriptedAgent } from '../support/grpc-test-agent.js';
import { sealedLikeV1 } from '../support/legacy-seal.js';
import { poll } from '../support/poll.js';
import { sql as sqlIn } from '../support/sql.js';
import { isolatedDatabase } from '../support/test-database.js';

const keyIds = (dataDir: string) =>
  readFileSync(path.join(dataDir, 'data-keys'), 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.slice(0, l.indexOf(':')));

describe('key rotation', function () {
  this.timeout(120_000);
  let dataDir: string;
  // Re-sealing reads every stored secret, so no other test's may be in this database.
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let cp: TestControlPlane | undefined;
  const sql = <T>(text: string, params: unknown[] = []) => sqlIn<T>(text, params, database.url);
  // The JWT secret and the data keys live in the data folder, as after `npm start`.
  const start = async () => (cp = await startTestControlPlane({ dataDir, env: { JWT_SECRET: '', DATABASE_URL: database.url, DATABASE_POOL_SIZE: String(database.poolSize) } }));
  const stop = async () => {
    await cp?.stop();
    cp = undefined;
  };
  // Asynchronous on purpose: the embedded test database is served by this very process.
  const admin = async (...args: string[]) => {
    const env = { ...process.env, DATABASE_URL: database.url, DATA_DIR: dataDir, JWT_SECRET: '', LOG_LEVEL: 'silent' };
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('control-plane/src/admin-cli.ts'), ...args], { env, timeout: 60_000 });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    return { status, output };
  };
  const sealedOf = async (serviceId: string, channelId: string) => {
    const [service] = await sql<{ options: Record<string, string> }>('select options from services where id = $1', [serviceId]);
    const [channel] = await sql<{ config: Record<string, string> }>('select config from notification_channels where id = $1', [channelId]);
    return { password: service!.options.password!, secret: channel!.config.secret! };
  };
  /** What the agent of the service's location is sent: the options with secrets opened. */
  const optionsSentToAgent = async (serviceId: string) => {
    const agent = await connectScriptedAgent(cp!.running.grpcPort, cp!.running.agentToken, 'rotation-site');
    try {
      const snapshot = await poll(() => agent.received.find((m) => m.payload?.$case === 'snapshot'), { what: 'the snapshot' });
      if (snapshot.payload?.$case !== 'snapshot') throw new Error('no snapshot');
      return snapshot.payload.value.assignments.find((a) => a.serviceId === serviceId)?.options;
    } finally {
      agent.close();
    }
  };

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'outpost-rotation-'));
    database = await isolatedDatabase();
  });
  after(async () => {
    await stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps stored secrets readable and refuses old tokens after both are rotated', async () => {
    await start();
    const owner: TestUser = await cp!.api.newUser('rotation');
    const service = await cp!.api.post('/services', { name: 'db', endpoint: '127.0.0.1:3306', check_type: 'MYSQL', locations: ['rotation-site'], options: { username: 'monitor', password: 'db-password-1' } }, owner.token);
    expect(service.status, service.text).to.equal(201);
    const channel = await cp!.api.post('/notification-channels', { name: 'hook', channel_type: 'webhook', config: { url: 'http://127.0.0.1:9/hook', secret: 'signing-secret-1234' } }, owner.token);
    expect(channel.status, channel.text).to.equal(201);
    const [firstKey] = keyIds(dataDir);
    expect((await sealedOf(service.body.id, channel.body.id)).password).to.match(new RegExp(`^enc:v2:${firstKey}:`));
    await stop();

    const jwt = await admin('rotate-jwt-secret');
    expect(jwt.status, jwt.output).to.equal(0);
    const data = await admin('rotate-data-key');
    expect(data.status, data.output).to.equal(0);
    const [newKey, oldKey] = keyIds(dataDir);
    expect(oldKey, 'the old key is kept for older backups').to.equal(firstKey);
    const sealed = await sealedOf(service.body.id, channel.body.id);
    expect(sealed.password).to.match(new RegExp(`^enc:v2:${newKey}:`));
    expect(sealed.secret).to.match(new RegExp(`^enc:v2:${newKey}:`));

    await start();
    expect((await cp!.api.get('/services', owner.token)).status, 'a token of the old secret').to.equal(401);
    const login = await cp!.api.post('/auth/login', { email: owner.email, password: owner.password });
    expect(login.status, 'signing in again').to.equal(200);
    const token = login.body.token as string;
    expect((await cp!.api.get(`/notification-channels/${channel.body.id}`, token)).body.config.secret).to.equal('****1234');
    expect(await optionsSentToAgent(service.body.id)).to.include({ username: 'monitor', password: 'db-password-1' });
  });

  it('rotates the data key under a running control plane, which reads the new key from the file', async () => {
    const owner = await cp!.api.newUser('rotation-live');
    const channel = await cp!.api.post('/notification-channels', { name: 'live', channel_type: 'pager', config: { integration_key: 'pager-key-abcd' } }, owner.token);
    const rotated = await admin('rotate-data-key');
    expect(rotated.status, rotated.output).to.equal(0);
    const [newest] = keyIds(dataDir);
    const [row] = await sql<{ config: { integration_key: string } }>('select config from notification_channels where id = $1', [channel.body.id]);
    expect(row!.config.integration_key).to.match(new RegExp(`^enc:v2:${newest}:`));
    expect((await cp!.api.get(`/notification-channels/${channel.body.id}`, owner.token)).body.config.integration_key).to.equal('****abcd');
    const changed = await cp!.api.put(`/notification-channels/${channel.body.id}`, { config: { integration_key: 'pager-key-efgh' } }, owner.token);
    expect(changed.status, changed.text).to.equal(200);
    const [after] = await sql<{ config: { integration_key: string } }>('select config from notification_channels where id = $1', [channel.body.id]);
    expect(after!.config.integration_key, 'new values are sealed under the new key').to.match(new RegExp(`^enc:v2:${newest}:`));
  });

  it('moves secrets of the first format, sealed under the JWT secret, onto the data key at start', async () => {
    const owner = await cp!.api.newUser('rotation-legacy');
    const service = await cp!.api.post('/services', { name: 'legacy', endpoint: '127.0.0.1:3306', check_type: 'MYSQL', locations: ['rotation-site'], options: { username: 'monitor', password: 'placeholder' } }, owner.token);
    const jwtSecret = readFileSync(path.join(dataDir, 'jwt-secret'), 'utf8').trim();
    await sql(`update services set options = jsonb_set(options, '{password}', to_jsonb($2::text)) where id = $1`, [service.body.id, sealedLikeV1('from-v1', jwtSecret)]);
    await stop();
    await start();
    const [row] = await sql<{ options: { password: string } }>('select options from services where id = $1', [service.body.id]);
    expect(row!.options.password).to.match(new RegExp(`^enc:v2:${keyIds(dataDir)[0]}:`));
    expect(await optionsSentToAgent(service.body.id)).to.include({ password: 'from-v1' });
  });
});
