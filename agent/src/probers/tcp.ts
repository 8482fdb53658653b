// TCP and TELNET: the port accepts a connection.
import net from 'node:net';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import { describeNetworkError } from './network-errors.js';
import type { Prober, ProbeResult } from './prober.js';

export function tcpProber(): Prober {
  return {
    family: 'TCP',
    prepare(target) {
      const address = parseHostPort(target.endpoint);
      if (!address) return () => Promise.resolve({ ok: false, responseTimeMs: 0, message: `bad endpoint ${target.endpoint}`, details: {} });
      const { host, port } = address;
      // An IP address needs no lookup, so there is no 'lookup' event to listen for.
      const literal = net.isIP(host) !== 0;
      return (signal) => {
        const started = performance.now();
        return new Promise<ProbeResult>((resolve) => {
          const socket = net.connect({ host, port });
          let lookupMs: number | undefined;
          const finish = (ok: boolean, message?: string) => {
            socket.destroy();
            signal.removeEventListener('abort', onAbort);
            const elapsed = Math.round(performance.now() - started);
            const details: Record<string, number> = ok ? { connect_ms: elapsed - (lookupMs ?? 0) } : {};
            if (lookupMs !== undefined) details.dns_ms = lookupMs;
            resolve({ ok, responseTimeMs: elapsed, message: message ?? `connected in ${elapsed} ms`, details });
          };
          const onAbort = () => finish(false, `timed out after ${target.timeoutMs} ms`);
          signal.addEventListener('abort', onAbort, { once: true });
          if (!literal) socket.once('lookup', () => (lookupMs = Math.round(performance.now() - started)));
          socket.once('connect', () => finish(true));
          socket.once('error', (err) => finish(false, describeNetworkError(err)));
        });
      };
    },
  };
}
