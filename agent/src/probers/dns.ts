// DNS: resolves the endpoint with the record type asked for (default A), through the
// system resolvers or the one in options.resolver; passes on at least one answer, and on
// options.expected_answer among them when set.
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import type { Prober, ProbeResult } from './prober.js';

export function dnsProber(): Prober<'DNS'> {
  return {
    family: 'DNS',
    prepare: (target) => async (signal): Promise<ProbeResult> => {
      const o = target.options;
      const type = o.dns_record_type ?? 'A';
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const resolver = new Resolver({ timeout: target.timeoutMs, tries: 1 });
      const onAbort = () => resolver.cancel();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        if (o.resolver) resolver.setServers([serverAddress(o.resolver)]);
        const answers = format(type, await resolver.resolve(target.endpoint, type));
        const details = { record_type: type, answers, resolve_ms: elapsed() };
        if (answers.length === 0) return { ok: false, responseTimeMs: elapsed(), message: `no ${type} records`, details };
        if (o.expected_answer !== undefined && !answers.some((a) => sameAnswer(a, o.expected_answer!))) {
          return { ok: false, responseTimeMs: elapsed(), message: `${type} answers ${answers.join(', ')} do not include ${o.expected_answer}`, details };
        }
        return { ok: true, responseTimeMs: elapsed(), message: `${type} ${answers.slice(0, 3).join(', ')}${answers.length > 3 ? ', ...' : ''} in ${elapsed()} ms`, details };
      } catch (err) {
        const { code, message: reason } = err as { code?: string; message?: string };
        const message = signal.aborted || code === 'ECANCELLED' || code === 'ETIMEOUT' ? `timed out after ${target.timeoutMs} ms` : describeDnsError(code, type, reason);
        return { ok: false, responseTimeMs: elapsed(), message, details: { record_type: type } };
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
  };
}

/** "127.0.0.1:5353", "[::1]:53" or a bare address (port 53). */
function serverAddress(resolver: string): string {
  if (isIP(resolver)) return resolver;
  const hostPort = parseHostPort(resolver);
  return hostPort ? (isIP(hostPort.host) === 6 ? `[${hostPort.host}]:${hostPort.port}` : `${hostPort.host}:${hostPort.port}`) : resolver;
}

function format(type: string, records: unknown): string[] {
  const list = Array.isArray(records) ? records : [records];
  return list.map((r) => {
    if (typeof r === 'string') return r;
    if (Array.isArray(r)) return r.join('');
    const x = r as Record<string, unknown>;
    switch (type) {
      case 'MX':
        return `${x.priority} ${x.exchange}`;
      case 'SRV':
        return `${x.priority} ${x.weight} ${x.port} ${x.name}`;
      case 'SOA':
        return `${x.nsname} ${x.hostmaster} ${x.serial}`;
      case 'CAA':
        return `${x.critical} ${Object.entries(x).find(([k]) => k !== 'critical')?.join(' ') ?? ''}`;
      default:
        return JSON.stringify(r);
    }
  });
}

function sameAnswer(answer: string, expected: string): boolean {
  const norm = (v: string) => v.trim().toLowerCase().replace(/\.$/, '');
  return norm(answer) === norm(expected);
}

function describeDnsError(code: string | undefined, type: string, reason: string | undefined): string {
  switch (code) {
    case 'ENOTFOUND':
      return 'no such domain (NXDOMAIN)';
    case 'ENODATA':
      return `no ${type} records`;
    case 'ESERVFAIL':
      return 'the resolver answered SERVFAIL';
    case 'EREFUSED':
      return 'the resolver refused the query (REFUSED)';
    case 'ECONNREFUSED':
      return 'connection refused by the resolver';
    case 'EBADRESP':
      return 'not a DNS answer from the resolver';
    case undefined:
      return `DNS lookup failed (${reason ?? 'unknown error'})`;
    default:
      return `DNS lookup failed (${code})`;
  }
}
