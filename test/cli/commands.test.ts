// The everyday `outpost` commands, run as their own process against a real control plane.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestUser } from '../support/api-client.js';
import { runCli } from '../support/cli-process.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';

describe('outpost commands', () => {
  let cp: TestControlPlane;
  let user: TestUser;
  let configHome: string;
  let env: Record<string, string>;

  before(async () => {
    cp = await startTestControlPlane();
    user = await cp.api.newUser('cli-commands');
    configHome = mkdtempSync(path.join(os.tmpdir(), 'outpost-cli-config-'));
    env = { OUTPOST_URL: cp.baseUrl, OUTPOST_API_KEY: await cp.api.keyWithRole(user, 'member'), XDG_CONFIG_HOME: configHome };
  });

  after(async () => {
    await cp?.stop();
    if (configHome) rmSync(configHome, { recursive: true, force: true });
  });

  describe('services', () => {
    it('creates, lists as JSON, gets by name, checks and removes a service', async () => {
      const created = await runCli(['services', 'create', '--name', 'shop', '--type', 'tcp', '--endpoint', '127.0.0.1:9', '--interval', '30', '-o', 'json'], env);
      expect(created.code, created.stderr).to.equal(0);
      const id = JSON.parse(created.stdout).id as string;

      const listed = await runCli(['services', 'ls', '--output', 'json'], env);
      expect(listed.code, listed.stderr).to.equal(0);
      const services = JSON.parse(listed.stdout);
      expect(services).to.have.length(1);
      expect(services[0]).to.include({ id, name: 'shop', check_type: 'TCP', check_interval_seconds: 30 });

      const table = await runCli(['services', 'ls'], env);
      expect(table.stdout.split('\n')[0]).to.match(/^ID\s+NAME\s+TYPE\s+ENDPOINT/);
      expect(table.stdout).to.contain('shop').and.to.contain('127.0.0.1:9');

      const got = await runCli(['services', 'get', 'shop', '-o', 'json'], env);
      expect(JSON.parse(got.stdout).id).to.equal(id);

      const checked = await runCli(['check', 'shop'], env);
      expect(checked.code, checked.stderr).to.equal(0);
      expect(checked.stdout).to.contain(`check enqueued for service ${id}`);

      const removed = await runCli(['services', 'rm', 'shop'], env);
      expect(removed.code, removed.stderr).to.equal(0);
      expect((await cp.api.get(`/services/${id}`, user.token)).status).to.equal(404);
    });

    it('fails with exit code 1 and the API error for a service that does not exist', async () => {
      const run = await runCli(['services', 'get', 'nothing-here'], env);
      expect(run.code).to.equal(1);
      expect(run.stderr).to.contain('no service named "nothing-here"');
      const api = await runCli(['services', 'create', '--name', 'x', '--type', 'http', '--endpoint', 'not a url'], env);
      expect(api.code).to.equal(1);
      expect(api.stderr).to.match(/POST \/services: 400 /);
    });
  });

  describe('agents and alerts', () => {
    it('registers an agent, showing its token once, and lists it', async () => {
      const keyOfAdmin = await cp.api.keyWithRole(user, 'admin');
      const created = await runCli(['agents', 'create', 'rack-1', '--location', 'dc-1', '-o', 'json'], { ...env, OUTPOST_API_KEY: keyOfAdmin });
      expect(created.code, created.stderr).to.equal(0);
      expect(JSON.parse(created.stdout).token).to.be.a('string').that.is.not.empty;
      const listed = await runCli(['agents', 'ls', '-o', 'json'], env);
      expect(JSON.parse(listed.stdout).map((a: { name: string }) => a.name)).to.include('rack-1');
      const table = await runCli(['agents', 'create', 'rack-2', '--location', 'dc-1'], { ...env, OUTPOST_API_KEY: keyOfAdmin });
      expect(table.code, table.stderr).to.equal(0);
      const token = /^token \(shown once\): (\S+)$/m.exec(table.stdout)?.[1];
      expect(table.stdout).to.include(`install and start it from the Debian package:\n  sudo apt install ./outpost-agent_*_amd64.deb\n  sudo outpost-agent install --server `);
      expect(table.stdout).to.include(` --token ${token} --location dc-1`);
    });

    it('lists alerts as JSON and reports an unknown alert', async () => {
      const listed = await runCli(['alerts', 'ls', '--status', 'all', '-o', 'json'], env);
      expect(listed.code, listed.stderr).to.equal(0);
      expect(JSON.parse(listed.stdout)).to.deep.equal([]);
      const ack = await runCli(['alerts', 'ack', '00000000-0000-4000-8000-000000000000'], env);
      expect(ack.code).to.equal(1);
      expect(ack.stderr).to.contain('404');
    });
  });

  describe('login', () => {
    it('stores a token readable by its owner only, which later commands use', async () => {
      const loginEnv = { OUTPOST_URL: cp.baseUrl, XDG_CONFIG_HOME: configHome };
      const run = await runCli(['login', '--email', user.email, '--password', user.password], loginEnv);
      expect(run.code, run.stderr).to.equal(0);
      const file = path.join(configHome, 'outpost', 'login.json');
      expect(statSync(file).mode & 0o777).to.equal(0o600);
      const stored = JSON.parse(readFileSync(file, 'utf8'));
      expect(stored).to.include({ url: cp.baseUrl, email: user.email });
      expect((await cp.api.get('/services', stored.token)).status).to.equal(200);

      // No URL and no key in the environment: both come from the stored login.
      const listed = await runCli(['services', 'ls', '-o', 'json'], { XDG_CONFIG_HOME: configHome });
      expect(listed.code, listed.stderr).to.equal(0);
      expect(JSON.parse(listed.stdout)).to.be.an('array');
    });

    it('fails with exit code 1 for a wrong password and stores nothing new', async () => {
      const home = mkdtempSync(path.join(os.tmpdir(), 'outpost-cli-config-'));
      try {
        const run = await runCli(['login', '--email', user.email, '--password', 'wrong-password'], { OUTPOST_URL: cp.baseUrl, XDG_CONFIG_HOME: home });
        expect(run.code).to.equal(1);
        expect(run.stderr).to.contain('401');
        expect(() => statSync(path.join(home, 'outpost', 'login.json'))).to.throw();
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });
  });

  describe('login with a second factor', () => {
    it('asks the second step with --code: a recovery code signs in, a wrong code does not', async () => {
      const { Secret, TOTP } = await import('otpauth');
      const person = await cp.api.newUser('cli-mfa');
      const setup = await cp.api.post('/profile/mfa/totp', {}, person.token);
      const confirmed = await cp.api.post('/profile/mfa/totp/confirm', { code: TOTP.generate({ secret: Secret.fromBase32(setup.body.secret) }) }, person.token);
      expect(confirmed.status, confirmed.text).to.equal(200);
      const home = mkdtempSync(path.join(os.tmpdir(), 'outpost-cli-config-'));
      try {
        const loginEnv = { OUTPOST_URL: cp.baseUrl, XDG_CONFIG_HOME: home };
        const wrong = await runCli(['login', '--email', person.email, '--password', person.password, '--code', '000000'], loginEnv);
        expect(wrong.code).to.equal(1);
        expect(() => statSync(path.join(home, 'outpost', 'login.json'))).to.throw();
        const run = await runCli(['login', '--email', person.email, '--password', person.password, '--code', confirmed.body.recovery_codes[0]], loginEnv);
        expect(run.code, run.stderr).to.equal(0);
        const stored = JSON.parse(readFileSync(path.join(home, 'outpost', 'login.json'), 'utf8'));
        expect((await cp.api.get('/services', stored.token)).status).to.equal(200);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });
  });

  describe('usage', () => {
    it('exits with 2 for an unknown command, a bad --output and a missing server', async () => {
      expect((await runCli(['frobnicate'], env)).code).to.equal(2);
      expect((await runCli(['services', 'ls', '-o', 'xml'], env)).code).to.equal(2);
      const noServer = await runCli(['services', 'ls'], { XDG_CONFIG_HOME: path.join(configHome, 'no-login-here') });
      expect(noServer.code).to.equal(2);
      expect(noServer.stderr).to.contain('pass --url or set OUTPOST_URL');
    });
  });
});
