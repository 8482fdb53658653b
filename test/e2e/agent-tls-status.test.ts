// An agent process over TLS to a control plane with a certificate, with its status endpoint.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { streamTls } from '../../agent/src/control/credentials.js';
import { startAgentProcess, type AgentProcess } from '../support/agent-process.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';
import { freePort } from '../fixtures/peers/net-fixtures.js';
import { selfSignedCertificateFiles } from '../fixtures/peers/self-signed.js';

describe('e2e: agent over TLS with a status endpoint', function () {
  this.timeout(60_000);
  let dir: string;
  let cp: TestControlPlane;
  let target: http.Server;
  const agents: AgentProcess[] = [];
  let certFile: string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-tls-'));
    const files = selfSignedCertificateFiles(dir);
    certFile = files.certFile;
    cp = await startTestControlPlane({ embeddedAgent: true, env: { GRPC_TLS_CERT: files.certFile, GRPC_TLS_KEY: files.keyFile } });
    target = http.createServer((_q, s) => s.end('ok'));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    for (const a of agents) await a.kill('SIGKILL');
    await cp?.stop();
    target?.closeAllConnections();
    await new Promise((r) => target?.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (name: string, extra: string[]) => {
    const agent = startAgentProcess({ server: `127.0.0.1:${cp.running.grpcPort}`, token: cp.running.agentToken, location: `tls-${process.pid}`, dataDir: path.join(dir, name), extra });
    agents.push(agent);
    return agent;
  };
  const get = async (url: string) => {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return { status: res.status, text: await res.text() };
  };

  it('checks services through a TLS stream and reports itself on /healthz and /metrics', async () => {
    const statusPort = await freePort();
    start('tls', ['--ca', certFile, '--status-addr', `127.0.0.1:${statusPort}`]);
    const user = await cp.api.newUser('tls');
    const s = (await cp.api.post('/services', { name: 'through-tls', endpoint: `http://127.0.0.1:${(target.address() as AddressInfo).port}/`, check_type: 'HTTP', locations: [`tls-${process.pid}`] }, user.token)).body;
    await poll(async () => (await cp.api.get(`/services/${s.id}`, user.token)).body.status === 'GREEN', { what: 'GREEN through the TLS agent', timeoutMs: 20_000 });
    const health = JSON.parse((await get(`http://127.0.0.1:${statusPort}/healthz`)).text);
    expect(health).to.include({ status: 'ok', connected: true, assignments: 1 });
    const metrics = (await get(`http://127.0.0.1:${statusPort}/metrics`)).text;
    expect(metrics).to.match(/^outpost_agent_checks_total\{result="pass"\} [1-9]/m);
    expect(metrics).to.match(/^outpost_agent_connected 1$/m);
    expect(metrics).to.match(/^outpost_agent_spool_results \d+$/m);
    expect(metrics).to.include('outpost_agent_schedule_lateness_seconds_bucket');
  });

  it('cannot connect in plaintext to the TLS endpoint', async () => {
    const statusPort = await freePort();
    start('plain', ['--insecure', '--status-addr', `127.0.0.1:${statusPort}`]);
    const health = await poll(async () => JSON.parse((await get(`http://127.0.0.1:${statusPort}/healthz`)).text), { what: 'the status endpoint' });
    expect(health.connected).to.equal(false);
  });

  it('the embedded agent still works over loopback TLS', async () => {
    const user = await cp.api.newUser('tls-local');
    const s = (await cp.api.post('/services', { name: 'local', endpoint: `http://127.0.0.1:${(target.address() as AddressInfo).port}/`, check_type: 'HTTP' }, user.token)).body;
    await poll(async () => (await cp.api.get(`/services/${s.id}`, user.token)).body.status === 'GREEN', { what: 'GREEN through the embedded agent', timeoutMs: 20_000 });
  });
});

describe('agent transport security', () => {
  it('uses plaintext only to loopback or with --insecure, TLS otherwise', () => {
    expect(streamTls({ server: '127.0.0.1:9090' })).to.equal(undefined);
    expect(streamTls({ server: 'localhost:9090' })).to.equal(undefined);
    expect(streamTls({ server: '[::1]:9090' })).to.equal(undefined);
    expect(streamTls({ server: 'outpost.example.com:9090' })).to.not.equal(undefined);
    expect(streamTls({ server: '10.1.2.3:9090' })).to.not.equal(undefined);
    expect(streamTls({ server: '10.1.2.3:9090', insecure: true })).to.equal(undefined);
  });
});
