// WEBSOCKET and WS: the HTTP upgrade handshake (ws:// or wss://), then a clean close.
// Passes on 101 Switching Protocols.
import WebSocket from 'ws';
import { describeNetworkError } from './network-errors.js';
import type { Prober, ProbeResult } from './prober.js';

const CLOSE_WAIT_MS = 1_000;

export function websocketProber(): Prober<'WEBSOCKET'> {
  return {
    family: 'WEBSOCKET',
    prepare: (target) => (signal) => {
      const o = target.options;
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      return new Promise<ProbeResult>((resolve) => {
        const socket = new WebSocket(target.endpoint, {
          headers: { 'user-agent': 'outpost-agent', ...o.headers },
          handshakeTimeout: target.timeoutMs,
          rejectUnauthorized: o.verify_tls ?? true,
          followRedirects: false,
          perMessageDeflate: false,
        });
        let settled = false;
        const finish = (result: ProbeResult) => {
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', onAbort);
          resolve(result);
        };
        const onAbort = () => {
          socket.terminate();
          finish({ ok: false, responseTimeMs: elapsed(), message: `timed out after ${target.timeoutMs} ms`, details: {} });
        };
        signal.addEventListener('abort', onAbort, { once: true });
        socket.once('upgrade', () => undefined);
        socket.once('open', () => {
          const upgradeMs = elapsed();
          const result = { ok: true, responseTimeMs: upgradeMs, message: `WebSocket 101 Switching Protocols in ${upgradeMs} ms`, details: { upgrade_ms: upgradeMs, status_code: 101 } };
          // A clean close; a peer that never answers it is cut off shortly after.
          const force = setTimeout(() => socket.terminate(), CLOSE_WAIT_MS);
          socket.once('close', () => clearTimeout(force));
          socket.close(1000, 'outpost check done');
          finish(result);
        });
        socket.once('unexpected-response', (_req, res) => {
          res.resume();
          socket.terminate();
          finish({ ok: false, responseTimeMs: elapsed(), message: `HTTP ${res.statusCode} instead of 101 Switching Protocols`, details: { status_code: res.statusCode ?? 0 } });
        });
        socket.once('error', (err) => {
          socket.terminate();
          finish({ ok: false, responseTimeMs: elapsed(), message: describeNetworkError(err), details: {} });
        });
      });
    },
  };
}
