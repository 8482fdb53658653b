// TLS_CERTIFICATE: the certificate a TLS server presents on host:port (SNI = the host), its
// chain and whether it can be trusted. RED when expired, not yet valid, issued for another
// name or not trusted; passed but degraded (YELLOW) with fewer than warn_days left.
import { isIP } from 'node:net';
import tls from 'node:tls';
import { DEFAULT_CERTIFICATE_WARN_DAYS } from '../../../shared/src/days-remaining.js';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import { describeNetworkError } from './network-errors.js';
import { certificateFacts, type CertificateFacts } from './peer-certificate.js';
import type { Prober, ProbeDetails, ProbeResult } from './prober.js';

export function tlsCertificateProber(): Prober<'TLS_CERTIFICATE'> {
  return {
    family: 'TLS_CERTIFICATE',
    prepare: (target) => (signal) => {
      const address = parseHostPort(target.endpoint);
      if (!address) return Promise.resolve({ ok: false, responseTimeMs: 0, message: `bad endpoint ${target.endpoint}`, details: {} });
      const options = target.options;
      const warnDays = options.warn_days ?? DEFAULT_CERTIFICATE_WARN_DAYS;
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      // RFC 6066 forbids an IP address as server name: an IP target is sent no SNI.
      const servername = isIP(address.host) ? undefined : address.host;
      // Verification is judged below from the finished handshake, so an untrusted or
      // expired certificate is still read and reported instead of ending in an error.
      const socket = tls.connect({ host: address.host, port: address.port, servername, ca: options.ca_certificate, rejectUnauthorized: false });
      return new Promise<ProbeResult>((resolve) => {
        let connectMs: number | undefined;
        let settled = false;
        const finish = (result: Omit<ProbeResult, 'responseTimeMs'>) => {
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', onAbort);
          socket.destroy();
          resolve({ ...result, responseTimeMs: elapsed() });
        };
        const fail = (message: string) => finish({ ok: false, message, details: {} });
        const onAbort = () => fail(`timed out after ${target.timeoutMs} ms`);
        signal.addEventListener('abort', onAbort, { once: true });
        socket.once('connect', () => (connectMs = elapsed()));
        socket.once('error', (err) => fail(describeNetworkError(err)));
        socket.once('close', () => fail('the server closed the connection during the TLS handshake'));
        socket.once('secureConnect', () => {
          const now = new Date();
          const facts = certificateFacts(socket.getPeerCertificate(true), now);
          if (!facts) return fail('the server sent no certificate');
          const timings: ProbeDetails = connectMs === undefined ? {} : { connect_ms: connectMs, tls_ms: elapsed() - connectMs };
          // tls checks the name only when the chain verified; checked here in every case.
          const nameError = tls.checkServerIdentity(address.host, socket.getPeerCertificate());
          const authorizationError = socket.authorized ? null : String(socket.authorizationError ?? 'not trusted');
          const verdict = judge(facts, now, warnDays, nameError, authorizationError);
          finish({
            ...verdict,
            details: { ...timings, ...facts, warn_days: warnDays, authorized: socket.authorized, authorization_error: authorizationError, hostname_matches: !nameError },
            observed: { tls_days_remaining: facts.days_remaining },
          });
        });
      });
    },
  };
}

/** The first reason to fail wins: dates, then the name, then trust. */
function judge(facts: CertificateFacts, now: Date, warnDays: number, nameError: Error | undefined, authorizationError: string | null): Pick<ProbeResult, 'ok' | 'degraded' | 'message'> {
  const until = facts.valid_to.slice(0, 10);
  if (new Date(facts.valid_to) <= now) return { ok: false, message: `certificate expired on ${until}` };
  if (new Date(facts.valid_from) > now) return { ok: false, message: `certificate is not valid before ${facts.valid_from.slice(0, 10)}` };
  if (nameError) return { ok: false, message: `certificate does not match the host name: ${nameError.message}` };
  if (authorizationError) return { ok: false, message: `certificate is not trusted: ${describeNetworkError({ code: authorizationError, message: authorizationError })}` };
  const plural = facts.days_remaining === 1 ? '' : 's';
  if (facts.days_remaining < warnDays) {
    return { ok: true, degraded: true, message: `certificate expires in ${facts.days_remaining} day${plural} (on ${until}), under the ${warnDays}-day warning` };
  }
  return { ok: true, message: `certificate valid for ${facts.days_remaining} more day${plural} (until ${until})` };
}
