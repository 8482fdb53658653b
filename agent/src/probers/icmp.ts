// PING and ICMP: one echo request through a raw socket (net-ping). Raw sockets need root
// or CAP_NET_RAW; without either the result says so instead of a bare EPERM.
import { lookup } from 'node:dns/promises';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { withoutBrackets } from '../../../shared/src/endpoints.js';
import { abortable } from './abortable.js';
import { nextIcmpSessionId } from './icmp-session-id.js';
import { describeNetworkError } from './network-errors.js';
import type { Prober, ProbeDetails, ProbeResult } from './prober.js';

interface PingSession {
  pingHost(target: string, done: (err: Error | null, target: string, sent?: Date, received?: Date) => void): void;
  close(): void;
}
interface NetPing {
  createSession(options: { networkProtocol: number; timeout: number; retries: number; packetSize?: number; sessionId: number }): PingSession;
  NetworkProtocol: { IPv4: number; IPv6: number };
}

const require = createRequire(import.meta.url);
// Loaded on first use: the native raw-socket add-on is needed only by ICMP checks.
let netPing: NetPing | undefined;

export function icmpProber(): Prober {
  return {
    family: 'ICMP',
    prepare: (target) => async (signal): Promise<ProbeResult> => {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const host = withoutBrackets(target.endpoint);
      let address: { address: string; family: number };
      let dnsMs: number | undefined;
      if (isIP(host)) {
        address = { address: host, family: isIP(host) };
      } else {
        try {
          address = await abortable(lookup(host), signal);
        } catch (err) {
          const message = signal.aborted ? `timed out after ${target.timeoutMs} ms` : describeNetworkError(err);
          return { ok: false, responseTimeMs: elapsed(), message, details: {} };
        }
        dnsMs = elapsed();
      }
      const lookedUp: ProbeDetails = dnsMs === undefined ? {} : { dns_ms: dnsMs };
      netPing ??= require('net-ping') as NetPing;
      let session: PingSession;
      try {
        session = netPing.createSession({
          networkProtocol: address.family === 6 ? netPing.NetworkProtocol.IPv6 : netPing.NetworkProtocol.IPv4,
          timeout: Math.max(1, target.timeoutMs - (dnsMs ?? 0)),
          retries: 0,
          sessionId: nextIcmpSessionId(),
        });
      } catch (err) {
        const reason = (err as Error).message;
        const permission = /not permitted|EPERM|EACCES/i.test(reason);
        return { ok: false, responseTimeMs: elapsed(), message: permission ? `ICMP needs root or CAP_NET_RAW (raw socket: ${reason})` : `ICMP: ${reason}`, details: {} };
      }
      return new Promise<ProbeResult>((resolve) => {
        const finish = (result: ProbeResult) => {
          signal.removeEventListener('abort', onAbort);
          session.close();
          resolve(result);
        };
        const onAbort = () => finish({ ok: false, responseTimeMs: elapsed(), message: `timed out after ${target.timeoutMs} ms`, details: lookedUp });
        signal.addEventListener('abort', onAbort, { once: true });
        session.pingHost(address.address, (err, _target, sent, received) => {
          if (err || !sent || !received) {
            finish({ ok: false, responseTimeMs: elapsed(), message: err ? `no echo reply from ${address.address}: ${err.message}` : 'no echo reply', details: lookedUp });
            return;
          }
          const rtt = received.getTime() - sent.getTime();
          finish({ ok: true, responseTimeMs: elapsed(), message: `echo reply from ${address.address} in ${rtt} ms`, details: { ...lookedUp, rtt_ms: rtt, address: address.address } });
        });
      });
    },
  };
}
