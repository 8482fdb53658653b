// prometheus-blackbox-exporter as a reference (Debian package; installed with apt-get when
// missing): started on a free 127.0.0.1 port with an HTTP and a TCP module, driven by the
// benchmark through /probe requests on kept-alive connections.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { stopChild, type RunningProcess } from '../support/agent-under-test.js';

const BINARY = '/usr/bin/prometheus-blackbox-exporter';
const CONFIG = `modules:
  http_2xx:
    prober: http
    timeout: 5s
    http: { preferred_ip_protocol: ip4 }
  tcp_connect:
    prober: tcp
    timeout: 5s
    tcp: { preferred_ip_protocol: ip4 }
`;

export interface Blackbox extends RunningProcess {
  /** One probe of `target` with the module for `kind`; resolves true when it passed. */
  probe(kind: 'http' | 'tcp', target: string): Promise<boolean>;
}

export async function startBlackbox(): Promise<Blackbox> {
  if (!existsSync(BINARY)) execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'prometheus-blackbox-exporter'], { stdio: 'inherit' });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-bench-bbe-'));
  writeFileSync(path.join(dir, 'blackbox.yml'), CONFIG);
  const port = await freePort();
  const child = spawn(BINARY, [`--config.file=${path.join(dir, 'blackbox.yml')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=error'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const get = (query: string) =>
    new Promise<string>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: `/probe?${query}`, agent }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.once('end', () => resolve(body));
        })
        .once('error', reject);
    });
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      await get('module=tcp_connect&target=127.0.0.1:1');
      break;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    child,
    async probe(kind, target) {
      const body = await get(`module=${kind === 'http' ? 'http_2xx' : 'tcp_connect'}&target=${encodeURIComponent(target)}`);
      return /^probe_success 1$/m.test(body);
    },
    async stop() {
      agent.destroy();
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}
