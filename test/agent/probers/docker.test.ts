import { execFileSync } from 'node:child_process';
import { linkSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parseCheckOptions } from '../../../shared/src/check-options.js';
import { BUSYBOX, CONTAINER_FLAGS, IMAGE, PODMAN, startPodman, type PodmanPeer } from '../../fixtures/peers/podman.js';
import { peerBinary, requireCapability } from '../../fixtures/peers/require-peer.js';
import { poll } from '../../support/poll.js';
import { runProbe } from './probe-helpers.js';

const isRoot = process.getuid?.() === 0;

describe('docker prober', () => {
  describe('against Podman', function () {
    this.timeout(60_000);
    let peer: PodmanPeer | undefined;
    let socket: string;
    const check = (container: string, options: Record<string, unknown> = {}) => runProbe('DOCKER', container, { socket, ...options });

    before(async function () {
      this.timeout(180_000);
      requireCapability(this, isRoot ? null : 'podman runs its containers as root here');
      peerBinary(PODMAN, 'podman', this);
      peerBinary(BUSYBOX, 'busybox-static', this);
      peer = await startPodman();
      socket = peer.socket;
      // Health checks run only when asked (`disable`: no systemd timer), so each stays as made here.
      const healthCheck = (command: string) => ['--health-cmd', command, '--health-interval', 'disable', '--health-retries', '1'];
      await peer.runContainer('web', [], ['sleep', '600']);
      await peer.runContainer('fine', healthCheck('true'), ['sleep', '600']);
      await peer.podman('healthcheck', 'run', 'fine');
      await peer.runContainer('sick', healthCheck('echo db down; exit 1'), ['sleep', '600']);
      await peer.podman('healthcheck', 'run', 'sick').catch(() => undefined);
      await peer.runContainer('warming', healthCheck('true'), ['sleep', '600']);
      await peer.runContainer('quit', [], ['sh', '-c', 'exit 3']);
      await peer.podman('wait', 'quit');
      await peer.runContainer('flaky', ['--restart', 'on-failure:2'], ['sh', '-c', 'exit 5']);
      await peer.podman('create', '--name', 'fresh', ...CONTAINER_FLAGS, IMAGE, 'true');
      await poll(async () => (await peer!.podman('inspect', '--format', '{{.State.Status}} {{.RestartCount}}', 'flaky')) === 'exited 2', {
        what: 'the flaky container to be restarted twice and stay exited',
        timeoutMs: 30_000,
        intervalMs: 200,
      });
    });
    after(() => peer?.stop());

    it('is GREEN for a running container without a health check, with its facts', async () => {
      const r = await check('web');
      expect(r.ok, r.message).to.equal(true);
      expect(r.degraded).to.equal(undefined);
      expect(r.message).to.match(/^container web is running in \d+ ms$/);
      expect(r.observed).to.deep.equal({ state: 'running', health: 'none', restart_count: 0 });
      expect(r.details).to.include({ image: 'localhost/outpost-busybox:latest', exit_code: 0, restart_count: 0 });
      expect(r.details.inspect_ms).to.be.a('number');
      expect(r.details.started_at).to.match(/^\d{4}-\d\d-\d\dT/);
    });

    it('finds a container by its id as well', async () => {
      const id = await peer!.podman('inspect', '--format', '{{.Id}}', 'web');
      const r = await check(id.slice(0, 12));
      expect(r.ok, r.message).to.equal(true);
      expect(r.message).to.match(new RegExp(`^container ${id.slice(0, 12)} is running in \\d+ ms$`));
    });

    it('is GREEN for a running container whose health check passes', async () => {
      const r = await check('fine');
      expect(r.ok, r.message).to.equal(true);
      expect(r.degraded).to.equal(undefined);
      expect(r.message).to.match(/^container fine is running \(healthy\) in \d+ ms$/);
      expect(r.observed).to.include({ state: 'running', health: 'healthy' });
    });

    it('is YELLOW while the health check is starting', async () => {
      const r = await check('warming');
      expect(r.ok, r.message).to.equal(true);
      expect(r.degraded).to.equal(true);
      expect(r.message).to.match(/^container warming is running \(health check starting\) in \d+ ms$/);
      expect(r.observed).to.include({ health: 'starting' });
    });

    it('is RED for an unhealthy container, with what its health check printed', async () => {
      const r = await check('sick');
      expect(r.ok).to.equal(false);
      expect(r.message).to.equal('container sick is unhealthy: db down');
      expect(r.observed).to.include({ state: 'running', health: 'unhealthy' });
    });

    it('is RED for an exited container, with its exit code', async () => {
      const r = await check('quit');
      expect(r.ok).to.equal(false);
      expect(r.message).to.equal('container quit is exited (exit code 3)');
      expect(r.details).to.include({ exit_code: 3 });
      expect(r.observed).to.include({ state: 'exited', health: 'none' });
    });

    it('is RED for a container created and never started', async () => {
      const r = await check('fresh');
      expect(r.ok).to.equal(false);
      expect(r.message).to.equal('container fresh is created');
    });

    it('reports how many times the container was restarted', async () => {
      const r = await check('flaky');
      expect(r.ok).to.equal(false);
      expect(r.message).to.equal('container flaky is exited (exit code 5)');
      expect(r.observed).to.include({ restart_count: 2 });
      expect(r.details).to.include({ restart_count: 2 });
    });

    it('is RED with "no container named ..." for an unknown container', async () => {
      const r = await check('ghost');
      expect(r.ok).to.equal(false);
      expect(r.message).to.equal('no container named ghost');
      expect(r.observed).to.equal(undefined);
    });

    it('lets a state or health assertion decide instead of its own judgement', async () => {
      const exitedExpected = await check('quit', { assertions: [{ source: 'state', comparison: 'equals', target: 'exited' }] });
      expect(exitedExpected.ok, exitedExpected.message).to.equal(true);
      expect(exitedExpected.message).to.match(/^container quit is exited \(exit code 3\) in \d+ ms$/);
      const runningExpected = await check('quit', { assertions: [{ source: 'state', comparison: 'equals', target: 'running' }] });
      expect(runningExpected.ok).to.equal(false);
      expect(runningExpected.message).to.equal('state equals "running": got "exited"');
      const unhealthyExpected = await check('sick', { assertions: [{ source: 'health', comparison: 'equals', target: 'unhealthy' }] });
      expect(unhealthyExpected.ok, unhealthyExpected.message).to.equal(true);
      const healthyExpected = await check('sick', { assertions: [{ source: 'health', comparison: 'equals', target: 'healthy' }] });
      expect(healthyExpected.ok).to.equal(false);
      expect(healthyExpected.message).to.equal('health equals "healthy": got "unhealthy"');
    });

    it('checks restart_count assertions on top of its own judgement', async () => {
      const steady = await check('web', { assertions: [{ source: 'restart_count', comparison: 'less_than', target: 1 }] });
      expect(steady.ok, steady.message).to.equal(true);
      const restarted = await check('flaky', { assertions: [{ source: 'state', comparison: 'equals', target: 'exited' }, { source: 'restart_count', comparison: 'less_than', target: 1 }] });
      expect(restarted.ok).to.equal(false);
      expect(restarted.message).to.equal('restart_count less_than 1: got 2');
    });

    it('says the agent needs the docker group when the socket refuses its user', function () {
      peerBinary('/usr/bin/setpriv', 'util-linux', this);
      // The socket is root's, mode 0600, in a folder others may traverse: nobody reaches it and is refused.
      const script = path.resolve('test/fixtures/docker-probe-once.ts');
      const out = execFileSync(
        'setpriv',
        ['--reuid=nobody', '--regid=nogroup', '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', process.execPath, '--import', 'tsx', script, 'web', socket],
        { encoding: 'utf8', cwd: process.cwd(), timeout: 30_000 },
      );
      const r = JSON.parse(out) as { ok: boolean; message: string };
      expect(r.ok).to.equal(false);
      expect(r.message).to.equal(`permission denied on ${socket}: the agent's user needs the docker group`);
    });
  });

  describe('without a Docker API on the socket', () => {
    let dir: string;
    before(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-docker-'))));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('says there is no Docker socket when the path does not exist', async () => {
      const missing = path.join(dir, 'docker.sock');
      const r = await runProbe('DOCKER', 'web', { socket: missing });
      expect(r.ok).to.equal(false);
      expect(r.message).to.equal(`no Docker socket at ${missing}: is Docker or Podman running? (options.socket)`);
    });

    it('says nothing listens when the socket file outlived its daemon', async () => {
      const listener = await unixListener(path.join(dir, 'live.sock'));
      const stale = path.join(dir, 'stale.sock');
      linkSync(listener.path, stale);
      await listener.close();
      const r = await runProbe('DOCKER', 'web', { socket: stale });
      expect(r.ok).to.equal(false);
      expect(r.message).to.equal(`nothing listens on ${stale}: is Docker or Podman running?`);
    });

    it('is RED with "not a Docker API" for an HTTP server without the API version header', async () => {
      const listener = await unixListener(path.join(dir, 'web.sock'), 'HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: 9\r\n\r\nnot here\n');
      try {
        const r = await runProbe('DOCKER', 'web', { socket: listener.path });
        expect(r.ok).to.equal(false);
        expect(r.message).to.equal(`not a Docker API at ${listener.path} (HTTP 404 without an Api-Version header)`);
      } finally {
        await listener.close();
      }
    });

    it('is RED with "not a Docker API" for a socket speaking another protocol, and closes its connection', async () => {
      const listener = await unixListener(path.join(dir, 'ssh.sock'), 'SSH-2.0-OpenSSH_9.2\r\n');
      try {
        const r = await runProbe('DOCKER', 'web', { socket: listener.path });
        expect(r.ok).to.equal(false);
        expect(r.message).to.match(new RegExp(`^not a Docker API at ${escape(listener.path)} \\(not an HTTP server`));
        await poll(() => listener.open() === 0, { what: 'the probe to close its connection', timeoutMs: 3_000 });
      } finally {
        await listener.close();
      }
    });

    it("is RED with the API's own message for its other errors", async () => {
      const body = '{"message":"container inspect failed: storage is broken"}';
      const answer = `HTTP/1.1 500 Internal Server Error\r\nApi-Version: 1.41\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      const listener = await unixListener(path.join(dir, 'broken.sock'), answer);
      try {
        const r = await runProbe('DOCKER', 'web', { socket: listener.path });
        expect(r.ok).to.equal(false);
        expect(r.message).to.equal('Docker API error 500: container inspect failed: storage is broken');
      } finally {
        await listener.close();
      }
    });

    it('ends at its timeout against a socket that never answers, and leaves no connection open', async () => {
      const listener = await unixListener(path.join(dir, 'silent.sock'));
      try {
        const started = Date.now();
        const r = await runProbe('DOCKER', 'web', { socket: listener.path }, 600);
        expect(r.ok).to.equal(false);
        expect(r.message).to.equal('timed out after 600 ms');
        expect(r.responseTimeMs).to.be.within(550, 800);
        expect(Date.now() - started).to.be.within(550, 3_000);
        expect(listener.accepted()).to.equal(1);
        await poll(() => listener.open() === 0, { what: 'the probe to close its connection', timeoutMs: 3_000 });
      } finally {
        await listener.close();
      }
    });
  });

  describe('options', () => {
    it('takes an absolute socket path, and state, health and restart_count assertions', () => {
      const options = {
        socket: '/run/podman/podman.sock',
        assertions: [
          { source: 'state', comparison: 'equals', target: 'running' },
          { source: 'health', comparison: 'not_equals', target: 'unhealthy' },
          { source: 'restart_count', comparison: 'less_than', target: 3 },
        ],
      };
      expect(parseCheckOptions('DOCKER', options)).to.deep.equal({ ok: true, options });
      expect(parseCheckOptions('DOCKER', {})).to.deep.equal({ ok: true, options: {} });
    });

    it('refuses a relative socket path, an unknown option and a source the family does not offer', () => {
      const relative = parseCheckOptions('DOCKER', { socket: 'docker.sock' });
      expect(relative.ok).to.equal(false);
      expect(relative.ok ? [] : relative.issues).to.deep.equal([{ path: 'socket', message: 'socket is the absolute path of a Docker-compatible socket, such as /run/podman/podman.sock' }]);
      expect(parseCheckOptions('DOCKER', { host: 'tcp://127.0.0.1:2375' }).ok).to.equal(false);
      expect(parseCheckOptions('DOCKER', { assertions: [{ source: 'status', comparison: 'equals', target: 200 }] }).ok).to.equal(false);
    });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

interface UnixListener {
  path: string;
  accepted(): number;
  open(): number;
  close(): Promise<void>;
}

/** A unix socket that answers `reply` (if any) to each connection, or stays silent. */
async function unixListener(socketPath: string, reply?: string): Promise<UnixListener> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((s) => {
    accepted++;
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
    // Read what the client sends, which lets its close be seen.
    s.resume();
    if (reply !== undefined) s.write(reply);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    path: socketPath,
    accepted: () => accepted,
    open: () => sockets.size,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
