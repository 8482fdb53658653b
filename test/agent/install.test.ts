import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { peerBinary } from '../fixtures/peers/require-peer.js';

function cli(...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.resolve('agent/src/cli.ts'), ...args], { encoding: 'utf8', timeout: 30_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('agent install', function () {
  this.timeout(60_000);
  let root: string;
  const base = ['--server', 'cp.example.com:9090', '--token', 'opa_the-secret-token-value', '--location', 'berlin'];
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'outpost-install-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const at = (p: string) => path.join(root, p);

  it('prints the unit and the environment file with a masked token on --dry-run, and writes nothing', () => {
    const r = cli('install', ...base, '--root', root, '--dry-run');
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include('[Service]');
    expect(r.stdout).to.include('OUTPOST_LOCATION=berlin');
    expect(r.stdout).to.include('OUTPOST_TOKEN=opa_th…');
    expect(r.stdout).to.not.include('the-secret-token-value');
    expect(existsSync(at('etc'))).to.equal(false);
  });

  it('writes a hardened unit, a private environment file and the data directory', () => {
    const r = cli('install', ...base, '--root', root, '--user', 'outpost-agent', '--data-dir', '/var/lib/outpost-agent');
    expect(r.code, r.stderr).to.equal(0);
    const unit = readFileSync(at('etc/systemd/system/outpost-agent.service'), 'utf8');
    expect(unit).to.match(new RegExp(`^ExecStart=${process.execPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\S+/dist/agent/src/cli\\.js run$`, 'm'));
    for (const line of ['User=outpost-agent', 'AmbientCapabilities=CAP_NET_RAW', 'Restart=always', 'ProtectSystem=strict', 'NoNewPrivileges=yes', 'EnvironmentFile=/etc/outpost-agent/agent.env', 'Environment=NODE_OPTIONS=--max-semi-space-size=4']) {
      expect(unit).to.include(line);
    }
    const env = at('etc/outpost-agent/agent.env');
    expect(readFileSync(env, 'utf8')).to.equal('OUTPOST_SERVER=cp.example.com:9090\nOUTPOST_TOKEN=opa_the-secret-token-value\nOUTPOST_LOCATION=berlin\n');
    expect(statSync(env).mode & 0o777).to.equal(0o640);
    expect(statSync(at('var/lib/outpost-agent')).isDirectory()).to.equal(true);
  });

  it('writes a unit that systemd-analyze verify accepts', function () {
    peerBinary('/usr/bin/systemd-analyze', 'systemd', this);
    cli('install', ...base, '--root', root);
    const verify = spawnSync('systemd-analyze', ['verify', at('etc/systemd/system/outpost-agent.service')], { encoding: 'utf8' });
    expect(verify.status, verify.stderr).to.equal(0);
  });

  it('uninstalls, keeping the data directory unless --purge', () => {
    cli('install', ...base, '--root', root);
    expect(cli('uninstall', '--root', root).code).to.equal(0);
    expect(existsSync(at('etc/systemd/system/outpost-agent.service'))).to.equal(false);
    expect(existsSync(at('etc/outpost-agent'))).to.equal(false);
    expect(existsSync(at('var/lib/outpost-agent'))).to.equal(true);
    cli('uninstall', '--root', root, '--purge');
    expect(existsSync(at('var/lib/outpost-agent'))).to.equal(false);
  });

  it('refuses a bad location or server with exit code 2', () => {
    expect(cli('install', '--server', 'nope', '--token', 't', '--location', 'x', '--root', root).code).to.equal(2);
    expect(cli('install', '--server', 'a:1', '--token', 't', '--location', 'has space', '--root', root).code).to.equal(2);
  });
});
