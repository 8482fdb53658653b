// The agent's Debian package (npm run build:agent): its contents and maintainer scripts; then
// installed into a throwaway root with dpkg --root (chrootless scripts, DPKG_ROOT), its unit
// verified by systemd, the installed agent run as the unit runs it (its own Node.js, its
// system user, CAP_NET_RAW alone) against a real control plane, upgraded, removed and purged.
// The steps of the lifecycle run in order on one root. Slow (it builds the package): it runs only
// with OUTPOST_PACKAGE_TESTS=1 (`npm run test:packages`, a step of its own in .ci/run).
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';
import { peerBinary, requireCapability, requirePackageTests } from '../fixtures/peers/require-peer.js';

const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const deb = path.resolve(`dist/agent-package/outpost-agent_${version}_amd64.deb`);
const UNIT = '/usr/lib/systemd/system/outpost-agent.service';

function run(command: string, args: string[], options: SpawnSyncOptions = {}) {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 120_000, ...options });
  return { status: r.status, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? ''), error: r.error };
}

function ok(r: ReturnType<typeof run>): string {
  expect(r.status, `${r.error?.message ?? ''}\n${r.stdout}\n${r.stderr}`).to.equal(0);
  return r.stdout;
}

/** name:x:id:... lines of <root>/etc/<file>. */
function idOf(root: string, file: 'passwd' | 'group', name: string): number | undefined {
  const line = readFileSync(path.join(root, 'etc', file), 'utf8').split('\n').find((l) => l.split(':')[0] === name);
  return line === undefined ? undefined : Number(line.split(':')[2]);
}

/** KEY=VALUE lines of an environment file, as systemd reads them. */
function environmentFile(file: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

describe('deploy: the agent as a Debian package', function () {
  this.timeout(120_000);
  let root: string;
  let work: string;
  let cp: TestControlPlane | undefined;
  let target: http.Server | undefined;

  const dpkg = (...args: string[]) => run('dpkg', [`--root=${root}`, `--log=${path.join(root, 'var/log/dpkg.log')}`, '--force-script-chrootless', ...args]);
  const status = () => run('dpkg-query', [`--root=${root}`, '-W', '-f=${db:Status-Abbrev}${Version}', 'outpost-agent']).stdout.trim();
  const at = (p: string) => path.join(root, p);

  before(function () {
    this.timeout(900_000);
    requirePackageTests(this, 'builds the package (a minute)');
    requireCapability(this, process.getuid?.() === 0 ? null : 'installing a package into a root and switching users need root');
    for (const [binary, pkg] of [['/usr/bin/dpkg-deb', 'dpkg'], ['/usr/bin/systemd-analyze', 'systemd'], ['/usr/bin/setpriv', 'util-linux'], ['/usr/bin/unshare', 'util-linux'], ['/usr/sbin/useradd', 'passwd']] as const) peerBinary(binary, pkg, this);
    // Built once per content: --reuse keeps a .deb made from the same inputs; --fast only
    // compresses less (xz takes over a minute here).
    const built = run(process.execPath, ['deploy/debian/build.mjs', '--reuse', '--fast'], { timeout: 900_000 });
    expect(built.status, built.stderr.slice(-4000)).to.equal(0);
    work = mkdtempSync(path.join(os.tmpdir(), 'outpost-deb-'));
    chmodSync(work, 0o755); // the agent's user must reach the installed files
    root = path.join(work, 'root');
    // What dpkg and useradd --prefix need in an empty root.
    for (const dir of ['var/lib/dpkg/info', 'var/lib/dpkg/updates', 'var/lib/dpkg/triggers', 'var/log', 'etc']) mkdirSync(at(dir), { recursive: true });
    writeFileSync(at('var/lib/dpkg/status'), '');
    writeFileSync(at('etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
    writeFileSync(at('etc/group'), 'root:x:0:\n');
    writeFileSync(at('etc/shadow'), 'root:*:19000:0:99999:7:::\n', { mode: 0o640 });
    writeFileSync(at('etc/gshadow'), 'root:*::\n', { mode: 0o640 });
  });
  after(async () => {
    await cp?.stop();
    target?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('is described, with the env file as a conffile and the three maintainer scripts', () => {
    const info = ok(run('dpkg-deb', ['--info', deb]));
    expect(info).to.match(/^ Package: outpost-agent$/m);
    expect(info).to.match(new RegExp(`^ Version: ${version.replace(/\./g, '\\.')}$`, 'm'));
    expect(info).to.match(/^ Architecture: amd64$/m);
    expect(info).to.match(/^ Depends: libc6 \(>= 2\.28\), libgcc-s1, libstdc\+\+6, passwd$/m);
    expect(ok(run('dpkg-deb', ['--field', deb, 'Installed-Size'])).trim()).to.match(/^\d+$/);
    const control = path.join(work, 'control');
    ok(run('dpkg-deb', ['--control', deb, control]));
    expect(readFileSync(path.join(control, 'conffiles'), 'utf8')).to.equal('/etc/outpost-agent/agent.env\n');
    for (const script of ['postinst', 'prerm', 'postrm']) {
      expect(statSync(path.join(control, script)).mode & 0o777, script).to.equal(0o755);
      ok(run('sh', ['-n', path.join(control, script)]));
      const text = readFileSync(path.join(control, script), 'utf8');
      expect(text, script).to.match(/^#!\/bin\/sh\n/).and.match(/^set -e$/m);
      // systemctl only inside the block that skips it under dpkg --root and without systemd.
      const guard = text.search(/^if \[ -z "\$(root|\{DPKG_ROOT:-\})" \] && \[ -d \/run\/systemd\/system \]; then$/m);
      expect(guard, `${script} guards systemctl`).to.be.above(0);
      expect(text.slice(0, guard), script).to.not.match(/^\s*[^#\s].*\bsystemctl\b/m);
    }
  });

  it('with systemd running, stops the agent before a removal or an upgrade and starts it again only if enabled and configured', () => {
    // A private mount namespace: a fresh /run where systemd "runs", a fresh /etc, and a
    // systemctl on PATH that records its calls and answers is-enabled from /run/enabled.
    const control = path.join(work, 'scripts');
    ok(run('dpkg-deb', ['--control', deb, control]));
    const fakeBin = path.join(work, 'fake-bin');
    mkdirSync(fakeBin);
    writeFileSync(path.join(fakeBin, 'systemctl'), '#!/bin/sh\necho "$*" >> /run/calls\ncase "$*" in "-q is-enabled outpost-agent.service") [ -e /run/enabled ] ;; esac\n', { mode: 0o755 });
    const scenario = (setup: string, script: string, ...args: string[]) => {
      const shell = [
        'set -e',
        'mount -t tmpfs tmpfs /run',
        'mount -t tmpfs tmpfs /etc',
        'mkdir -p /run/systemd/system /etc/outpost-agent',
        'touch /run/calls',
        setup,
        `PATH=${fakeBin}:$PATH sh ${path.join(control, script)} ${args.join(' ')}`,
        'cat /run/calls',
      ].join('\n');
      return ok(run('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', shell])).trim().split('\n').filter(Boolean);
    };
    const configured = 'echo OUTPOST_TOKEN=opa_x > /etc/outpost-agent/agent.env';
    expect(scenario('', 'prerm', 'upgrade', '0.1.1')).to.deep.equal(['stop outpost-agent.service']);
    expect(scenario('', 'prerm', 'remove')).to.deep.equal(['stop outpost-agent.service']);
    expect(scenario(`${configured}; touch /run/enabled`, 'postinst', 'abort-upgrade', '0.1.1')).to.deep.equal(['daemon-reload', '-q is-enabled outpost-agent.service', 'restart outpost-agent.service']);
    expect(scenario(configured, 'postinst', 'abort-upgrade', '0.1.1'), 'not enabled').to.deep.equal(['daemon-reload', '-q is-enabled outpost-agent.service']);
    expect(scenario('echo OUTPOST_TOKEN= > /etc/outpost-agent/agent.env; touch /run/enabled', 'postinst', 'abort-upgrade', '0.1.1'), 'no token').to.deep.equal(['daemon-reload', '-q is-enabled outpost-agent.service']);
    expect(scenario('', 'postrm', 'remove')).to.deep.equal(['daemon-reload']);
  });

  it('holds the agent alone: wrapper, Node.js runtime, bundle, native add-ons, unit and env file, all root-owned', () => {
    const entries = new Map<string, { mode: string; owner: string; link?: string }>();
    for (const line of ok(run('dpkg-deb', ['--contents', deb], { maxBuffer: 64 * 1024 * 1024 })).trim().split('\n')) {
      const [mode, owner, , , , file, arrow, link] = line.split(/\s+/);
      entries.set(file!.replace(/\/$/, ''), { mode: mode!, owner: owner!, link: arrow === '->' ? link : undefined });
    }
    expect([...entries.values()].filter((e) => e.owner !== 'root/root')).to.deep.equal([]);
    const modes = (file: string) => entries.get(file)?.mode;
    expect(modes('./opt/outpost-agent/bin/outpost-agent')).to.equal('-rwxr-xr-x');
    expect(modes('./opt/outpost-agent/node/bin/node')).to.equal('-rwxr-xr-x');
    expect(modes('./opt/outpost-agent/lib/cli.js')).to.match(/^-rw.r-.r-.$/);
    expect(modes('./opt/outpost-agent/lib/node_modules/raw-socket/build/Release/raw.node')).to.match(/^-rw.r-.r-.$/);
    expect(modes('./opt/outpost-agent/lib/node_modules/ssh2/lib/protocol/crypto/build/Release/sshcrypto.node')).to.match(/^-rw.r-.r-.$/);
    expect(modes(`.${UNIT}`)).to.equal('-rw-r--r--');
    expect(modes('./etc')).to.equal('drwxr-xr-x');
    expect(modes('./etc/outpost-agent')).to.equal('drwxr-x---');
    expect(modes('./etc/outpost-agent/agent.env')).to.equal('-rw-r-----');
    expect(entries.get('./usr/bin/outpost-agent')?.link).to.equal('/opt/outpost-agent/bin/outpost-agent');
    // Only the native packages and their dependencies are node_modules; the rest is bundled.
    const packages = new Set([...entries.keys()].map((f) => /^\.\/opt\/outpost-agent\/lib\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)?.[1]).filter(Boolean));
    expect(packages).to.include('net-ping').and.include('ssh2');
    for (const bundled of ['@grpc/grpc-js', 'zod', 'pino', 'commander', 'koa', 'typescript', 'esbuild', 'tsx']) expect(packages, bundled).to.not.include(bundled);
    const own = [...entries.keys()].filter((f) => f.startsWith('./opt/outpost-agent/lib/') && !f.includes('/node_modules/'));
    expect(own.filter((f) => /\.(ts|map)$/.test(f))).to.deep.equal([]);
    expect([...entries.keys()].filter((f) => /\.o$|\/obj\.target\//.test(f)), 'build leftovers').to.deep.equal([]);
  });

  it('installs into an empty root: system user, private data folder, env file readable by its group only', () => {
    ok(dpkg('--force-depends', '--install', deb));
    expect(status()).to.equal(`ii ${version}`);
    const passwd = readFileSync(at('etc/passwd'), 'utf8').split('\n').find((l) => l.startsWith('outpost-agent:'));
    expect(passwd).to.match(/^outpost-agent:x:\d+:\d+:Outpost agent:\/var\/lib\/outpost-agent:\/usr\/sbin\/nologin$/);
    const uid = idOf(root, 'passwd', 'outpost-agent')!;
    const gid = idOf(root, 'group', 'outpost-agent')!;
    expect(uid).to.be.below(1000);
    const data = statSync(at('var/lib/outpost-agent'));
    expect([data.mode & 0o7777, data.uid, data.gid]).to.deep.equal([0o750, uid, gid]);
    const env = statSync(at('etc/outpost-agent/agent.env'));
    expect([env.mode & 0o7777, env.uid, env.gid]).to.deep.equal([0o640, 0, gid]);
    expect(statSync(at('etc/outpost-agent')).mode & 0o7777).to.equal(0o750);
  });

  it('has a unit that systemd-analyze verify accepts, running the package as its user with CAP_NET_RAW only', () => {
    const unit = readFileSync(at(UNIT), 'utf8');
    for (const line of [
      'ExecStart=/opt/outpost-agent/bin/outpost-agent run',
      'User=outpost-agent',
      'EnvironmentFile=/etc/outpost-agent/agent.env',
      'StateDirectory=outpost-agent',
      'AmbientCapabilities=CAP_NET_RAW',
      'CapabilityBoundingSet=CAP_NET_RAW',
      'NoNewPrivileges=yes',
    ]) {
      expect(unit.split('\n'), line).to.include(line);
    }
    // verify --root resolves the unit's dependencies in the root: give it the host's targets.
    for (const name of readdirSync('/usr/lib/systemd/system').filter((n) => /\.(target|slice)$/.test(n))) {
      cpSync(path.join('/usr/lib/systemd/system', name), at(`usr/lib/systemd/system/${name}`), { verbatimSymlinks: true, force: false });
    }
    ok(run('systemd-analyze', ['verify', `--root=${root}`, UNIT]));
  });

  it('pings with the bundled raw-socket in the bundled Node.js as a plain user with CAP_NET_RAW alone, and not without it', () => {
    const agent = at('opt/outpost-agent/bin/outpost-agent');
    const asNobody = ['--reuid=65534', '--regid=65534', '--clear-groups'];
    const withRaw = ok(run('setpriv', [...asNobody, '--inh-caps=-all,+net_raw', '--ambient-caps=-all,+net_raw', '--bounding-set=-all,+net_raw', '--', agent, 'check', '--type', 'PING', '--endpoint', '127.0.0.1']));
    expect(withRaw).to.match(/^PASS PING 127\.0\.0\.1: echo reply/);
    const without = run('setpriv', [...asNobody, '--inh-caps=-all', '--bounding-set=-all', '--', agent, 'check', '--type', 'PING', '--endpoint', '127.0.0.1']);
    expect(without.status).to.equal(1);
    expect(without.stdout).to.include('ICMP needs root or CAP_NET_RAW');
    const abi = ok(run(at('opt/outpost-agent/node/bin/node'), ['-p', 'process.versions.node.split(".")[0] + " " + process.versions.modules']));
    expect(abi.trim().split(' ')[0]).to.equal('24');
  });

  it('loads every prober from the package: each private-network check against nothing ends with its own message, not a prober error', () => {
    const agent = at('opt/outpost-agent/bin/outpost-agent');
    // Nothing listens on port 9 (discard) of loopback here: each check is refused, or times out.
    const checks: [string, string, string[]][] = [
      ['SNMP', '127.0.0.1:9', []],
      ['NTP', '127.0.0.1:9', []],
      ['UDP', '127.0.0.1:9', ['send=ping']],
      ['LDAP', 'ldap://127.0.0.1:9', []],
      ['RADIUS', '127.0.0.1:9', ['secret=testing123', 'username=probe']],
      ['SIP', 'sip:127.0.0.1:9', []],
      ['MQTT', 'mqtt://127.0.0.1:9', []],
      ['AMQP', 'amqp://127.0.0.1:9', []],
      ['NATS', 'nats://127.0.0.1:9', []],
      ['DOCKER', 'web', [`socket=${path.join(root, 'no-such.sock')}`]],
      ['TRACEROUTE', '127.0.0.1', ['packets=1']],
      ['DOMAIN', 'example.com', ['rdap_url=http://127.0.0.1:9/']],
    ];
    for (const [type, endpoint, options] of checks) {
      const r = run(agent, ['check', '--type', type, '--endpoint', endpoint, '--timeout', '2', ...options.flatMap((o) => ['--option', o])]);
      expect(r.status, `${type}: ${r.stdout}${r.stderr}`).to.be.oneOf([0, 1]);
      expect(r.stdout, type).to.match(new RegExp(`^(PASS|FAIL) ${type} `)).and.not.match(/prober error|not supported/);
    }
  });

  it("takes the control plane's install command, then, run as the unit runs it with its own Node.js, checks an HTTP and a PING service", async () => {
    cp = await startTestControlPlane();
    const user: TestUser = await cp.api.newUser('deb-agent');
    const location = `deb-${process.pid}`;
    const created = await cp.api.post('/agents', { name: 'packaged', location }, user.token);
    expect(created.status, created.text).to.equal(201);
    // The command the API answers, run against the root instead of /.
    const [command, ...args] = (created.body.install_commands.deb[1] as string).replace(/^sudo /, '').split(' ');
    expect([command, args[0]]).to.deep.equal(['outpost-agent', 'install']);
    const installed = ok(run(at('opt/outpost-agent/bin/outpost-agent'), [...args, '--root', root]));
    expect(installed).to.include('start it with: systemctl enable outpost-agent && systemctl restart outpost-agent');
    const settings = environmentFile(at('etc/outpost-agent/agent.env'));
    expect(settings).to.include({ OUTPOST_SERVER: `127.0.0.1:${cp.running.grpcPort}`, OUTPOST_TOKEN: created.body.token, OUTPOST_LOCATION: location });

    target = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => target!.listen(0, '127.0.0.1', r));
    const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
    // No node on PATH: only what the wrapper itself calls.
    const tools = path.join(work, 'tools');
    mkdirSync(tools);
    for (const tool of ['dirname', 'readlink']) symlinkSync(`/usr/bin/${tool}`, path.join(tools, tool));
    const unitEnv = Object.fromEntries([...readFileSync(at(UNIT), 'utf8').matchAll(/^Environment="?([A-Z_]+)=([^"\n]*)"?$/gm)].map((m) => [m[1], m[2]]));
    const uid = idOf(root, 'passwd', 'outpost-agent')!;
    const gid = idOf(root, 'group', 'outpost-agent')!;
    const child = spawn(
      '/usr/bin/setpriv',
      [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--inh-caps=-all,+net_raw', '--ambient-caps=-all,+net_raw', '--bounding-set=-all,+net_raw', '--', at('opt/outpost-agent/bin/outpost-agent'), 'run'],
      { env: { PATH: tools, ...settings, ...unitEnv, OUTPOST_DATA_DIR: at(unitEnv.OUTPOST_DATA_DIR!) }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
    try {
      const services = [];
      for (const [name, endpoint, checkType] of [['deb-http', targetUrl, 'HTTP'], ['deb-ping', '127.0.0.1', 'PING']]) {
        const s = await cp.api.post('/services', { name, endpoint, check_type: checkType, check_interval_seconds: 3600, locations: [location] }, user.token);
        expect(s.status, s.text).to.equal(201);
        services.push(s.body.id as string);
      }
      for (const id of services) {
        await poll(async () => (await cp!.api.get(`/services/${id}`, user.token)).body.status === 'GREEN', { what: `service ${id} GREEN (agent output: ${output.slice(-1000)})`, timeoutMs: 30_000 });
        const [check] = (await cp.api.get(`/services/${id}/checks`, user.token)).body;
        expect(check).to.include({ location, agent_id: created.body.id });
      }
      expect((await cp.api.get(`/agents/${created.body.id}`, user.token)).body).to.include({ status: 'online', version });
      child.kill('SIGTERM');
      expect(await exited, output.slice(-2000)).to.equal(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    expect(statSync(at('var/lib/outpost-agent/agent-id')).uid, 'the agent keeps its id in its data folder').to.equal(idOf(root, 'passwd', 'outpost-agent'));
  });

  it('upgrades in place, keeping the token, the data folder and the user', function () {
    this.timeout(300_000);
    const settingsBefore = readFileSync(at('etc/outpost-agent/agent.env'), 'utf8');
    const dataBefore = readdirSync(at('var/lib/outpost-agent')).sort();
    const uidBefore = idOf(root, 'passwd', 'outpost-agent');
    // The same package with a later version (gzip: this copy only has to be quick to make).
    const unpacked = path.join(work, 'next');
    ok(run('dpkg-deb', ['--raw-extract', deb, unpacked]));
    const control = path.join(unpacked, 'DEBIAN/control');
    writeFileSync(control, readFileSync(control, 'utf8').replace(/^Version: .*$/m, `Version: ${version}+next`));
    const next = path.join(work, 'next.deb');
    ok(run('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z1', '--build', unpacked, next], { timeout: 240_000 }));
    ok(dpkg('--force-depends', '--install', next));
    expect(status()).to.equal(`ii ${version}+next`);
    expect(readFileSync(at('etc/outpost-agent/agent.env'), 'utf8')).to.equal(settingsBefore);
    expect(readdirSync(at('var/lib/outpost-agent')).sort()).to.deep.equal(dataBefore);
    expect(idOf(root, 'passwd', 'outpost-agent')).to.equal(uidBefore);
  });

  it('removes the program but keeps the settings, token and data; purge deletes them and the user', () => {
    ok(dpkg('--remove', 'outpost-agent'));
    expect(status()).to.match(/^rc /);
    for (const gone of ['opt/outpost-agent/bin/outpost-agent', 'opt/outpost-agent/node/bin/node', UNIT, 'usr/bin/outpost-agent']) expect(existsSync(at(gone)), gone).to.equal(false);
    expect(readFileSync(at('etc/outpost-agent/agent.env'), 'utf8')).to.match(/^OUTPOST_TOKEN=opa_/m);
    expect(existsSync(at('var/lib/outpost-agent'))).to.equal(true);
    expect(idOf(root, 'passwd', 'outpost-agent')).to.be.a('number');

    ok(dpkg('--purge', 'outpost-agent'));
    expect(status()).to.equal('');
    for (const gone of ['etc/outpost-agent', 'var/lib/outpost-agent']) expect(existsSync(at(gone)), gone).to.equal(false);
    expect(idOf(root, 'passwd', 'outpost-agent')).to.equal(undefined);
    expect(idOf(root, 'group', 'outpost-agent')).to.equal(undefined);
  });
});
