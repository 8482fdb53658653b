// The container images of deploy/container: built by build.sh with podman into a storage of the
// test's own, then run as the README says: the control plane with its data on a named volume,
// an agent container with the token the control plane generated there, checking an HTTP server
// of the test (both containers on the host's network, so every address is loopback); the data
// kept across a restart of the control plane's container, and both exiting 0 on SIGTERM.
// Slow (it builds the images; a first build also bootstraps Debian): it runs only with
// OUTPOST_PACKAGE_TESTS=1 (`npm run test:packages`, a step of its own in .ci/run), not in `npm test`.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { ApiClient, type TestUser } from '../support/api-client.js';
import { poll } from '../support/poll.js';
import { freePort } from '../fixtures/peers/net-fixtures.js';
import { HOST_NETWORK_FLAGS, makePodmanCommand, type PodmanCommand } from '../fixtures/peers/podman-command.js';
import { peerBinary, requireCapability } from '../fixtures/peers/require-peer.js';
import { settingNames, type ComposeFile } from './compose-checks.js';
import { requirePackageTests } from '../fixtures/peers/require-peer.js';

const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const CONTROL_PLANE = `localhost/outpost-control-plane:${version}`;
const AGENT = `localhost/outpost-agent:${version}`;

/** What `podman image inspect` says of an image (podman keeps the health check beside Config). */
interface ImageRecord {
  Size: number;
  Config: { User: string; Env: string[]; ExposedPorts?: Record<string, unknown>; Volumes?: Record<string, unknown>; StopSignal?: string };
  Healthcheck?: { Test: string[] };
}

describe('deploy: the container images', function () {
  this.timeout(120_000);
  let engine: PodmanCommand | undefined;
  let target: http.Server | undefined;
  const ports = { http: 0, grpc: 0, agentStatus: 0 };
  let api: ApiClient;
  let user: TestUser;
  let serviceId: string;
  const location = `container-${process.pid}`;

  const podman = (...args: string[]) => engine!.podman(...args);
  const inspectImage = async (name: string) => (JSON.parse(await podman('image', 'inspect', name)) as ImageRecord[])[0]!;
  const startControlPlane = () =>
    podman('run', '--detach', '--name', 'outpost', ...HOST_NETWORK_FLAGS, '--volume', 'outpost-data:/var/lib/outpost', '--env', 'HOST=127.0.0.1', '--env', `PORT=${ports.http}`, '--env', `GRPC_PORT=${ports.grpc}`, CONTROL_PLANE);
  const ready = async () => {
    const isReady = async () => (await fetch(`http://127.0.0.1:${ports.http}/api/v1/ready`, { signal: AbortSignal.timeout(5_000) })).status === 200;
    await poll(isReady, { what: 'the control plane container ready', timeoutMs: 60_000, intervalMs: 250 }).catch(async (err) => {
      throw new Error(`${(err as Error).message}\n${await podman('logs', '--tail', '40', 'outpost').catch(String)}`);
    });
  };
  /** `podman stop` (the image's STOPSIGNAL, SIGKILL after 30 s): the exit code and how long it took. */
  const stop = async (name: string) => {
    const started = Date.now();
    await podman('stop', '--time', '30', name);
    return { exitCode: Number(await podman('container', 'inspect', '--format', '{{.State.ExitCode}}', name)), ms: Date.now() - started };
  };

  before(function () {
    this.timeout(1_800_000);
    requirePackageTests(this, 'builds the images (minutes)');
    requireCapability(this, process.getuid?.() === 0 ? null : 'building a Debian root and running podman need root');
    for (const [binary, pkg] of [['/usr/bin/podman', 'podman'], ['/usr/sbin/debootstrap', 'debootstrap'], ['/usr/bin/unshare', 'util-linux']] as const) peerBinary(binary, pkg, this);
    engine = makePodmanCommand();
    const started = Date.now();
    const built = spawnSync('deploy/container/build.sh', ['--engine', engine.command], { encoding: 'utf8', timeout: 1_700_000, maxBuffer: 64 * 1024 * 1024 });
    expect(built.status, `${built.error?.message ?? ''}\n${built.stdout.slice(-3000)}\n${built.stderr.slice(-3000)}`).to.equal(0);
    console.log(`      built both images in ${Math.round((Date.now() - started) / 1000)} s`);
  });
  after(async function () {
    this.timeout(180_000);
    target?.close();
    await engine?.remove();
  });

  it('builds both images on the local Debian base: non-root, a data volume, their ports and a health check', async () => {
    const controlPlane = await inspectImage(CONTROL_PLANE);
    expect(controlPlane.Config.User).to.equal('10001:10001');
    expect(Object.keys(controlPlane.Config.Volumes ?? {})).to.deep.equal(['/var/lib/outpost']);
    expect(Object.keys(controlPlane.Config.ExposedPorts ?? {}).sort()).to.deep.equal(['8080/tcp', '9090/tcp']);
    expect(controlPlane.Config.Env).to.include.members(['DATA_DIR=/var/lib/outpost', 'PORT=8080', 'GRPC_PORT=9090', 'NODE_ENV=production']);
    expect(controlPlane.Config.StopSignal).to.equal('SIGTERM');
    expect(controlPlane.Healthcheck?.Test.join(' ')).to.include('/api/v1/ready');
    const agent = await inspectImage(AGENT);
    expect(agent.Config.User).to.equal('10001:10001');
    expect(Object.keys(agent.Config.Volumes ?? {})).to.deep.equal(['/var/lib/outpost-agent']);
    expect(agent.Config.Env).to.include.members(['OUTPOST_DATA_DIR=/var/lib/outpost-agent', 'NODE_ENV=production']);
    expect(agent.Healthcheck?.Test.join(' ')).to.include('/healthz');
    for (const [image, record] of [[CONTROL_PLANE, controlPlane], [AGENT, agent]] as const) {
      const release = await podman('run', '--rm', ...HOST_NETWORK_FLAGS, '--entrypoint', 'sh', image, '-c', '. /etc/os-release; echo "$VERSION_CODENAME $(node --version) $(id -u)"');
      expect(release, image).to.match(/^bookworm v20\.\d+\.\d+ 10001$/);
      console.log(`      ${image}: ${Math.round(record.Size / 1e6)} MB`);
    }
  });

  it('runs the control plane with its data on a named volume: ready, healthy, and its agent token kept there', async () => {
    ports.http = await freePort();
    ports.grpc = await freePort();
    await startControlPlane();
    await ready();
    // The image's HEALTHCHECK, run once (podman schedules it with systemd, which is absent here).
    await podman('healthcheck', 'run', 'outpost');
    const volume = await podman('volume', 'inspect', '--format', '{{.Mountpoint}}', 'outpost-data');
    expect(readFileSync(path.join(volume, 'agent-token'), 'utf8').trim()).to.have.length.of.at.least(32);
    api = new ApiClient(`http://127.0.0.1:${ports.http}`);
    user = await api.newUser('container');
  });

  it('runs an agent container that checks an HTTP service of the test through the control plane', async () => {
    target = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => target!.listen(0, '127.0.0.1', r));
    const created = await api.post('/services', { name: 'container-http', endpoint: `http://127.0.0.1:${(target.address() as AddressInfo).port}/`, check_type: 'HTTP', check_interval_seconds: 60, locations: [location] }, user.token);
    expect(created.status, created.text).to.equal(201);
    serviceId = created.body.id;
    const volume = await podman('volume', 'inspect', '--format', '{{.Mountpoint}}', 'outpost-data');
    const token = readFileSync(path.join(volume, 'agent-token'), 'utf8').trim();
    ports.agentStatus = await freePort();
    await podman('run', '--detach', '--name', 'outpost-agent', ...HOST_NETWORK_FLAGS, '--volume', 'outpost-agent-data:/var/lib/outpost-agent',
      '--env', `OUTPOST_SERVER=127.0.0.1:${ports.grpc}`, '--env', `OUTPOST_TOKEN=${token}`, '--env', `OUTPOST_LOCATION=${location}`,
      '--env', 'OUTPOST_INSECURE=true', '--env', `OUTPOST_STATUS_ADDR=127.0.0.1:${ports.agentStatus}`, AGENT);
    const agentLogs = () => podman('logs', '--tail', '20', 'outpost-agent').catch(String);
    await poll(async () => (await api.get(`/services/${serviceId}`, user.token)).body.status === 'GREEN', { what: 'the service GREEN', timeoutMs: 60_000, intervalMs: 250 }).catch(async (err) => {
      throw new Error(`${(err as Error).message}\n${await agentLogs()}`);
    });
    const [check] = (await api.get(`/services/${serviceId}/checks`, user.token)).body;
    expect(check).to.include({ location });
    await podman('healthcheck', 'run', 'outpost-agent');
  });

  it('keeps the user, the service and its results across a restart, having exited 0 on SIGTERM', async () => {
    const checksBefore = (await api.get(`/services/${serviceId}/checks`, user.token)).body as { id: string }[];
    expect(checksBefore).to.not.be.empty;
    const stopped = await stop('outpost');
    console.log(`      control plane: exit code ${stopped.exitCode} after ${stopped.ms} ms of SIGTERM`);
    expect(stopped.exitCode).to.equal(0);
    expect(stopped.ms, 'stopped before the 30 s grace period ran out').to.be.below(30_000);
    await podman('start', 'outpost');
    await ready();
    // The token signed before the restart still opens: the JWT secret was kept on the volume too.
    const service = await api.get(`/services/${serviceId}`, user.token);
    expect(service.status, service.text).to.equal(200);
    expect(service.body.name).to.equal('container-http');
    const login = await api.post('/auth/login', { email: user.email, password: user.password });
    expect(login.status, login.text).to.equal(200);
    const checksAfter = (await api.get(`/services/${serviceId}/checks`, user.token)).body as { id: string }[];
    expect(checksAfter.map((c) => c.id)).to.include.members(checksBefore.map((c) => c.id));
  });

  it('stops the agent container on SIGTERM with exit code 0', async () => {
    const stopped = await stop('outpost-agent');
    console.log(`      agent: exit code ${stopped.exitCode} after ${stopped.ms} ms of SIGTERM`);
    expect(stopped.exitCode).to.equal(0);
    expect(stopped.ms).to.be.below(30_000);
  });
});

describe('deploy/container/compose.yaml', () => {
  /** What a Containerfile declares with `instruction`, e.g. VOLUME ["/var/lib/outpost"] or EXPOSE 8080 9090. */
  const declared = (image: string, instruction: string) =>
    readFileSync(`deploy/container/${image}.Containerfile`, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith(`${instruction} `))
      .flatMap((line) => line.slice(instruction.length + 1).replace(/[[\]"]/g, '').split(/[\s,]+/).filter(Boolean));

  it("runs build.sh's images with settings they read, their data folders on volumes and the control plane's ports", () => {
    const { services } = parse(readFileSync('deploy/container/compose.yaml', 'utf8')) as ComposeFile;
    const controlPlane = services['control-plane']!;
    const agent = services.agent!;
    expect(readFileSync('deploy/container/build.sh', 'utf8')).to.include('--tag "outpost-$image:latest"');
    expect(controlPlane.image).to.equal('outpost-control-plane:${OUTPOST_TAG:-latest}');
    expect(agent.image).to.equal('outpost-agent:${OUTPOST_TAG:-latest}');
    const unread = (env: Record<string, string> | undefined, file: string) => Object.keys(env ?? {}).filter((name) => !settingNames(file).has(name));
    expect(unread(controlPlane.environment, 'control-plane/src/config.ts')).to.deep.equal([]);
    expect(unread(agent.environment, 'agent/src/config.ts')).to.deep.equal([]);
    expect(agent.environment?.OUTPOST_TOKEN, 'the agent presents the platform token').to.equal(controlPlane.environment?.AGENT_TOKEN);
    expect(agent.environment?.OUTPOST_SERVER).to.equal(`control-plane:${declared('control-plane', 'EXPOSE')[1]}`);
    expect(controlPlane.volumes?.map((v) => v.split(':')[1])).to.deep.equal(declared('control-plane', 'VOLUME'));
    expect(agent.volumes?.map((v) => v.split(':')[1])).to.deep.equal(declared('agent', 'VOLUME'));
    const published = ((controlPlane as { ports?: string[] }).ports ?? []).map((p) => p.split(':').at(-1));
    expect(published).to.deep.equal(declared('control-plane', 'EXPOSE'));
  });
});
