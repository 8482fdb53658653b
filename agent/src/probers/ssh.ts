// SSH through ssh2: banner plus a full key exchange. Without credentials the refused login
// that follows the key exchange still passes; with credentials the login must succeed.
import { Client } from 'ssh2';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import { describeNetworkError } from './network-errors.js';
import type { Prober, ProbeResult } from './prober.js';

interface SshOptions {
  username?: string;
  password?: string;
  private_key?: string;
}

export function sshProber(): Prober {
  return {
    family: 'SSH',
    probe(target, signal) {
      const o = target.options as SshOptions;
      const withCredentials = o.password !== undefined || o.private_key !== undefined;
      const address = parseHostPort(target.endpoint);
      if (!address) return Promise.resolve({ ok: false, responseTimeMs: 0, message: `bad endpoint ${target.endpoint}`, details: {} });
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const client = new Client();
      let ident = '';
      let kexMs: number | undefined;
      return new Promise<ProbeResult>((resolve) => {
        const finish = (ok: boolean, message: string) => {
          signal.removeEventListener('abort', onAbort);
          client.end();
          client.destroy();
          const details: ProbeResult['details'] = {};
          if (ident) details.server_ident = ident;
          if (kexMs !== undefined) details.kex_ms = kexMs;
          resolve({ ok, responseTimeMs: elapsed(), message, details });
        };
        const onAbort = () => finish(false, `timed out after ${target.timeoutMs} ms`);
        signal.addEventListener('abort', onAbort, { once: true });
        // "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3" → "SSH-2.0-OpenSSH_9.2p1": the comment is noise.
        const banner = () => `${ident.split(' ')[0] || 'SSH'} banner, kex ok`;
        client.on('handshake', () => (kexMs = elapsed()));
        client.on('ready', () => finish(true, withCredentials ? `${banner()}, login ok` : banner()));
        client.on('error', (err: Error & { level?: string }) => {
          if (err.level === 'client-authentication' && kexMs !== undefined) {
            finish(!withCredentials, withCredentials ? `${banner()}, login refused` : banner());
          } else {
            finish(false, kexMs === undefined && ident === '' ? describeNetworkError(err) : `SSH: ${err.message}`);
          }
        });
        client.on('close', () => finish(false, ident ? 'the server closed the connection during the handshake' : 'not an SSH server'));
        client.connect({
          host: address.host,
          port: address.port,
          username: o.username ?? 'outpost-probe',
          password: o.password,
          privateKey: o.private_key,
          readyTimeout: target.timeoutMs,
          tryKeyboard: false,
          // ssh2 reports the server's identification line only through its debug hook.
          debug: (line: string) => {
            const match = /Remote ident: '(.*)'/.exec(line);
            if (match?.[1]) ident = match[1];
          },
        });
      });
    },
  };
}
