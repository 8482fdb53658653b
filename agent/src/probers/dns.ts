// DNS: resolves the endpoint with the record type asked for (default A), through the
// system resolvers or the one in options.resolver; passes on at least one answer, and on
// options.expected_answer among them when set. Every answer the resolver gives (NXDOMAIN and
// SERVFAIL included) is observed as its answers and response code, for options.assertions.
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { assertsOn } from '../../../shared/src/assertion-catalogue.js';
import type { CheckOptions } from '../../../shared/src/check-options.js';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import type { Prober, ProbeResult } from './prober.js';

/** node's (c-ares) error codes for the answers that carry a response code, as that code. */
const RCODES: Record<string, string> = {
  ENODATA: 'NOERROR',
  ENOTFOUND: 'NXDOMAIN',
  ESERVFAIL: 'SERVFAIL',
  EREFUSED: 'REFUSED',
  ENOTIMP: 'NOTIMP',
  EFORMERR: 'FORMERR',
};

export function dnsProber(): Prober<'DNS'> {
  return {
    family: 'DNS',
    prepare: (target) => {
      const o = target.options;
      const type = o.dns_record_type ?? 'A';
      const judged = judgedByAssertions(o);
      return async (signal): Promise<ProbeResult> => {
        const started = performance.now();
        const elapsed = () => Math.round(performance.now() - started);
        const resolver = new Resolver({ timeout: target.timeoutMs, tries: 1 });
        const onAbort = () => resolver.cancel();
        signal.addEventListener('abort', onAbort, { once: true });
        try {
          if (o.resolver) resolver.setServers([serverAddress(o.resolver)]);
          const answers = format(type, await resolver.resolve(target.endpoint, type));
          const details = { record_type: type, answers, resolve_ms: elapsed() };
          const observed = { answers, rcode: 'NOERROR' };
          if (answers.length === 0) return { ok: judged.has('NOERROR'), responseTimeMs: elapsed(), message: `no ${type} records`, details, observed };
          if (o.expected_answer !== undefined && !answers.some((a) => sameAnswer(a, o.expected_answer!))) {
            return { ok: false, responseTimeMs: elapsed(), message: `${type} answers ${answers.join(', ')} do not include ${o.expected_answer}`, details, observed };
          }
          return { ok: true, responseTimeMs: elapsed(), message: `${type} ${answers.slice(0, 3).join(', ')}${answers.length > 3 ? ', ...' : ''} in ${elapsed()} ms`, details, observed };
        } catch (err) {
          const { code, message: reason } = err as { code?: string; message?: string };
          if (signal.aborted || code === 'ECANCELLED' || code === 'ETIMEOUT') return { ok: false, responseTimeMs: elapsed(), message: `timed out after ${target.timeoutMs} ms`, details: { record_type: type } };
          const message = describeDnsError(code, type, reason);
          const rcode = code === undefined ? undefined : RCODES[code];
          if (rcode === undefined) return { ok: false, responseTimeMs: elapsed(), message, details: { record_type: type } };
          const details = { record_type: type, answers: [], rcode, resolve_ms: elapsed() };
          return { ok: judged.has(rcode), responseTimeMs: elapsed(), message, details, observed: { answers: [], rcode } };
        } finally {
          signal.removeEventListener('abort', onAbort);
        }
      };
    },
  };
}

/**
 * The response codes whose answer the check's assertions judge rather than the prober: with
 * an assertion on the code, every code (`rcode equals "NXDOMAIN"` passes on a name gone, or
 * `REFUSED` on a resolver closed to outsiders); with assertions on the answers alone, an
 * empty answer (NOERROR without records, or NXDOMAIN), which they may expect (`not_exists`).
 */
function judgedByAssertions(o: CheckOptions<'DNS'>): ReadonlySet<string> {
  if (assertsOn(o.assertions, 'rcode')) return new Set(Object.values(RCODES));
  if (assertsOn(o.assertions, 'answers')) return new Set(['NOERROR', 'NXDOMAIN']);
  return new Set();
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
