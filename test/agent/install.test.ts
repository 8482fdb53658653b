import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { install, mergeEnvironment, PACKAGED_DATA_DIR, PACKAGED_USER, uninstall } from '../../agent/src/cli/install-command.js';
import { UsageError } from '../../agent/src/cli/usage-error.js';
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
    for (const line of ['User=outpost-agent', 'AmbientCapabilities=CAP_NET_RAW', 'Restart=always', 'ProtectSystem=strict', 'NoNewPrivileges=yes', 'EnvironmentFile=/etc/outpost-agent/agent.env', 'Environment="NODE_OPTIONS=--max-semi-space-size=4 --max-old-space-size=1024"']) {
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

describe('agent install from the Debian package', () => {
  let root: string;
  const flags = { server: 'cp.example.com:9090', token: 'opa_the-secret-token-value', location: 'berlin', dataDir: PACKAGED_DATA_DIR, user: PACKAGED_USER };
  const envFile = () => path.join(root, 'etc/outpost-agent/agent.env');
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'outpost-install-deb-'));
    mkdirSync(path.join(root, 'etc/outpost-agent'), { recursive: true });
    // As the package's postinst leaves it; our own group, so the test need not be root.
    writeFileSync(path.join(root, 'etc/group'), `root:x:0:\n${PACKAGED_USER}:x:${process.getgid!()}:\n`);
    writeFileSync(envFile(), readFileSync('deploy/debian/agent.env', 'utf8'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('fills in the package\'s environment file, keeping its comments and other settings, and writes no unit', () => {
    writeFileSync(envFile(), `${readFileSync(envFile(), 'utf8')}OUTPOST_STATUS_ADDR=127.0.0.1:9465\n`);
    const lines: string[] = [];
    expect(install({ ...flags, root }, (l) => lines.push(l), 'package')).to.equal(0);
    const env = readFileSync(envFile(), 'utf8');
    expect(env).to.match(/^# Outpost agent settings/);
    expect(env.split('\n').filter((l) => !l.startsWith('#') && l !== '')).to.deep.equal([
      'OUTPOST_SERVER=cp.example.com:9090',
      'OUTPOST_TOKEN=opa_the-secret-token-value',
      'OUTPOST_LOCATION=berlin',
      'OUTPOST_STATUS_ADDR=127.0.0.1:9465',
    ]);
    expect(statSync(envFile()).mode & 0o777).to.equal(0o640);
    expect(statSync(envFile()).gid).to.equal(process.getgid!());
    expect(existsSync(path.join(root, 'etc/systemd'))).to.equal(false);
    expect(lines.at(-1)).to.equal('start it with: systemctl enable outpost-agent && systemctl restart outpost-agent');
  });

  it('masks the token on --dry-run and changes nothing', () => {
    const before = readFileSync(envFile(), 'utf8');
    const lines: string[] = [];
    install({ ...flags, root, dryRun: true }, (l) => lines.push(l), 'package');
    expect(lines.join('\n')).to.include('OUTPOST_TOKEN=opa_th…').and.not.include('the-secret-token-value');
    expect(readFileSync(envFile(), 'utf8')).to.equal(before);
  });

  it('refuses another user or data directory, which the packaged unit fixes', () => {
    expect(() => install({ ...flags, root, user: 'someone' }, () => {}, 'package')).to.throw(UsageError, /drop-in/);
    expect(() => install({ ...flags, root, dataDir: '/srv/agent' }, () => {}, 'package')).to.throw(UsageError, /drop-in/);
  });

  it('says to reinstall when the package\'s group is missing', () => {
    writeFileSync(path.join(root, 'etc/group'), 'root:x:0:\n');
    expect(() => install({ ...flags, root }, () => {}, 'package')).to.throw(/group outpost-agent is missing: reinstall/);
  });

  it('leaves purging to apt', () => {
    expect(() => uninstall({ root, dataDir: PACKAGED_DATA_DIR, purge: true }, () => {}, 'package')).to.throw(UsageError, /apt purge/);
  });
});

describe('mergeEnvironment', () => {
  it('replaces the first line of each setting, drops repeats, appends new ones and keeps the rest', () => {
    const merged = mergeEnvironment('# c\nA=1\nB=2\nA=3\nE=1\n\n', { A: 'x', C: 'y', D: undefined, E: null });
    expect(merged).to.equal('# c\nA=x\nB=2\nC=y\n');
  });
});

describe('agent install --insecure from the Debian package', () => {
  it('writes OUTPOST_INSECURE=true, and removes it when installed again without the flag', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'outpost-install-deb-'));
    try {
      mkdirSync(path.join(root, 'etc'), { recursive: true });
      writeFileSync(path.join(root, 'etc/group'), `${PACKAGED_USER}:x:${process.getgid!()}:\n`);
      const flags = { server: 'cp.example.com:9090', token: 't', location: 'x', dataDir: PACKAGED_DATA_DIR, user: PACKAGED_USER, root };
      install({ ...flags, insecure: true }, () => {}, 'package');
      expect(readFileSync(path.join(root, 'etc/outpost-agent/agent.env'), 'utf8')).to.include('\nOUTPOST_INSECURE=true\n');
      install(flags, () => {}, 'package');
      expect(readFileSync(path.join(root, 'etc/outpost-agent/agent.env'), 'utf8')).to.not.include('OUTPOST_INSECURE');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
