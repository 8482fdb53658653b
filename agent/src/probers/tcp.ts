// TCP and TELNET: the port accepts a connection.
import net from 'node:net';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import { describeNetworkError } from './network-errors.js';
import { perTarget } from './per-target.js';
import type { Prober, ProbeResult } from './prober.js';

interface Address {
  host: string;
  port: number;
  /** An IP address: no lookup, so no 'lookup' event to listen for. */
  literal: boolean;
}

export function tcpProber(): Prober {
  // Parsed once per target, not on every check (the parse was a third of this prober's own CPU, P1).
  const addressOf = perTarget((target): Address | null => {
    const parsed = parseHostPort(target.endpoint);
    return parsed ? { ...parsed, literal: net.isIP(parsed.host) !== 0 } : null;
  });

  return {
    family: 'TCP',
    probe(target, signal) {
      const address = addressOf(target);
      if (!address) return Promise.resolve({ ok: false, responseTimeMs: 0, message: `bad endpoint ${target.endpoint}`, details: {} });
      const started = performance.now();
      return new Promise<ProbeResult>((resolve) => {
        const socket = net.connect({ host: address.host, port: address.port });
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
        if (!address.literal) socket.once('lookup', () => (lookupMs = Math.round(performance.now() - started)));
        socket.once('connect', () => finish(true));
        socket.once('error', (err) => finish(false, describeNetworkError(err)));
      });
    },
  };
}
