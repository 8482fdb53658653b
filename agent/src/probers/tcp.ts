// TCP and TELNET: the port accepts a connection.
import net from 'node:net';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import { describeNetworkError } from './network-errors.js';
import type { Prober, ProbeResult, ProbeTarget } from './prober.js';

interface Address {
  host: string;
  port: number;
  /** An IP address: no lookup, so no 'lookup' event to listen for. */
  literal: boolean;
}

export function tcpProber(): Prober {
  // The scheduler hands the same target to every check of an assignment: its endpoint is
  // parsed once, not on every check (the parse was a third of this prober's own CPU, P1).
  const addresses = new WeakMap<ProbeTarget, Address | null>();
  const addressOf = (target: ProbeTarget): Address | null => {
    let address = addresses.get(target);
    if (address === undefined) {
      const parsed = parseHostPort(target.endpoint);
      address = parsed ? { ...parsed, literal: net.isIP(parsed.host) !== 0 } : null;
      addresses.set(target, address);
    }
    return address;
  };

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
