// Runs Debian's HAProxy with deploy/haproxy/haproxy.cfg itself, rewritten only where Docker
// differs from a test: the replicas' names become loopback ports and the frontends bind to
// loopback. So tests exercise the balancing, health checks and timeouts that are deployed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { poll } from './poll.js';

export const HAPROXY_BINARY = '/usr/sbin/haproxy';
const DEPLOYED_CONFIG = fileURLToPath(new URL('../../deploy/haproxy/haproxy.cfg', import.meta.url));

export interface ReplicaPorts {
  http: number;
  grpc: number;
}

export interface HaproxyProcess {
  httpPort: number;
  grpcPort: number;
  output(): string;
  stop(): Promise<void>;
}

/**
 * The deployed configuration with `control-plane-a`, `-b`... at `replicas[0]`, `[1]`...; more
 * replicas than it names get server lines like its last one's.
 */
export function renderHaproxyConfig(replicas: ReplicaPorts[], httpPort: number, grpcPort: number): string {
  const letterOf = (i: number) => String.fromCharCode('a'.charCodeAt(0) + i);
  const replica = (letter: string) => {
    const ports = replicas[letter.charCodeAt(0) - 'a'.charCodeAt(0)];
    if (!ports) throw new Error(`haproxy.cfg names control-plane-${letter}, and no replica was given for it`);
    return ports;
  };
  const deployed = readFileSync(DEPLOYED_CONFIG, 'utf8');
  const named = new Set([...deployed.matchAll(/control-plane-([a-z]):/g)].map((m) => m[1]!)).size;
  const last = letterOf(named - 1);
  const extra = replicas.slice(named).map((_, i) => letterOf(named + i));
  return deployed
    .replace(new RegExp(`^(\\s*server cp-)${last}( control-plane-)${last}(:.*)$`, 'gm'), (line, head: string, host: string, rest: string) =>
      [line, ...extra.map((letter) => `${head}${letter}${host}${letter}${rest}`)].join('\n'),
    )
    .replace(/ resolvers docker/g, '')
    .replace(/^(\s*server \S+ )control-plane-([a-z]):(\d+)(?: port (\d+))?/gm, (_, head: string, letter: string, port: string, checkPort?: string) => {
      const ports = replica(letter);
      const target = port === '9090' ? ports.grpc : ports.http;
      return `${head}127.0.0.1:${target}${checkPort ? ` port ${ports.http}` : ''}`;
    })
    .replace(/^(\s*bind ):8080$/m, `$1127.0.0.1:${httpPort}`)
    .replace(/^(\s*bind ):9090$/m, `$1127.0.0.1:${grpcPort}`);
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Starts HAProxy in the foreground; resolves once both frontends accept connections. */
export async function startHaproxy(replicas: ReplicaPorts[], httpPort: number, grpcPort: number): Promise<HaproxyProcess> {
  const dir = mkdtempSync(path.join(tmpdir(), 'outpost-haproxy-'));
  const config = path.join(dir, 'haproxy.cfg');
  writeFileSync(config, renderHaproxyConfig(replicas, httpPort, grpcPort));
  const child = spawn(HAPROXY_BINARY, ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await poll(async () => child.exitCode === null && (await accepts(httpPort)) && (await accepts(grpcPort)), { what: 'HAProxy listening', timeoutMs: 10_000, intervalMs: 50 });
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n${output}`);
  }
  return { httpPort, grpcPort, output: () => output, stop };
}
