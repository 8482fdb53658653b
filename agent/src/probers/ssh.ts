// SSH through ssh2: banner plus a full key exchange. Without credentials the refused login
// that follows the key exchange still passes; with credentials the login must succeed.
// The probe owns the TCP socket so that it can time the connect and the banner, and say what
// a server that never sends a banner sent instead. The identification line is the `banner` source.
import net from 'node:net';
import { Client } from 'ssh2';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import { describeNetworkError } from './network-errors.js';
import type { Prober, ProbeDetails, ProbeResult } from './prober.js';

/** RFC 4253 lets a server send text lines before its identification; this much is read for it. */
const MAX_PRE_BANNER_BYTES = 8192;

export function sshProber(): Prober<'SSH'> {
  return {
    family: 'SSH',
    prepare: (target) => (signal) => {
      const o = target.options;
      const withCredentials = o.password !== undefined || o.private_key !== undefined;
      const address = parseHostPort(target.endpoint);
      if (!address) return Promise.resolve({ ok: false, responseTimeMs: 0, message: `bad endpoint ${target.endpoint}`, details: {} });
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const details: ProbeDetails = {};
      let ident: string | undefined;
      const socket = net.connect({ host: address.host, port: address.port });
      socket.once('connect', () => (details.connect_ms = elapsed()));
      const banner = watchBanner(socket, (line) => {
        details.banner_ms = elapsed();
        details.server_ident = ident = line;
      });
      const client = new Client();
      return new Promise<ProbeResult>((resolve) => {
        let settled = false;
        const finish = (ok: boolean, message: string) => {
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', onAbort);
          client.end();
          client.destroy();
          socket.destroy();
          const result: ProbeResult = { ok, responseTimeMs: elapsed(), message, details };
          resolve(ident === undefined ? result : { ...result, observed: { banner: ident } });
        };
        const onAbort = () => {
          const seen = banner.firstLine();
          const why = details.server_ident || seen === undefined ? '' : ` waiting for the SSH banner (the server sent "${seen}")`;
          finish(false, `timed out after ${target.timeoutMs} ms${why}`);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        // "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3" → "SSH-2.0-OpenSSH_9.2p1": the comment is noise.
        const kexOk = () => `${String(details.server_ident ?? 'SSH').split(' ')[0]} banner, kex ok`;
        client.on('handshake', () => (details.kex_ms = elapsed()));
        client.on('ready', () => finish(true, withCredentials ? `${kexOk()}, login ok` : kexOk()));
        client.on('error', (err: Error & { level?: string }) => {
          if (err.level === 'client-authentication' && details.kex_ms !== undefined) {
            finish(!withCredentials, withCredentials ? `${kexOk()}, login refused` : kexOk());
          } else {
            finish(false, details.server_ident === undefined ? describeNetworkError(err) : `SSH: ${err.message}`);
          }
        });
        client.on('close', () => finish(false, details.server_ident ? 'the server closed the connection during the handshake' : 'not an SSH server (no banner)'));
        client.connect({
          sock: socket,
          username: o.username ?? 'outpost-probe',
          password: o.password,
          privateKey: o.private_key,
          tryKeyboard: false,
        });
      });
    },
  };
}

/** Reads along with ssh2 until the identification line ("SSH-..."), keeping the first line seen. */
function watchBanner(socket: net.Socket, onIdent: (ident: string) => void): { firstLine(): string | undefined } {
  let text = '';
  const onData = (chunk: Buffer) => {
    text += chunk.toString('latin1');
    const ident = text.split(/\r?\n/).slice(0, -1).find((line) => line.startsWith('SSH-'));
    if (ident !== undefined) onIdent(ident);
    if (ident !== undefined || text.length > MAX_PRE_BANNER_BYTES) socket.off('data', onData);
  };
  socket.on('data', onData);
  return { firstLine: () => (text.includes('\n') ? text.slice(0, text.indexOf('\n')).replace(/\r$/, '').slice(0, 80) : undefined) };
}
