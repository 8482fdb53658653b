// How an HTTP or WebSocket check proves itself to its target and whom it trusts: verify_tls,
// ca_certificate (which replaces the system roots, as node's `ca` does) and a client
// certificate for mutual TLS. The PEMs are parsed once per target into one secure context that
// every connection of its checks shares: node would otherwise build a context per connection.
import { X509Certificate } from 'node:crypto';
import tls, { type SecureContext } from 'node:tls';
import type { CheckOptions } from '../../../shared/src/check-options.js';

export type ClientTlsOptions = Pick<CheckOptions<'WEBSOCKET'>, 'verify_tls' | 'ca_certificate' | 'client_certificate' | 'client_key'>;

/** What tls.connect takes from the options; no secure context when none of the PEMs is set. */
export interface ClientTls {
  rejectUnauthorized: boolean;
  secureContext?: SecureContext;
}

/** Throws, naming the option, for a PEM that cannot be used. */
export function clientTls(options: ClientTlsOptions): ClientTls {
  const { ca_certificate: ca, client_certificate: cert, client_key: key } = options;
  const rejectUnauthorized = options.verify_tls ?? true;
  if (ca === undefined && cert === undefined && key === undefined) return { rejectUnauthorized };
  if ((cert === undefined) !== (key === undefined)) throw new Error('client_certificate and client_key are needed together');
  // node takes a `ca` without a certificate in it and then trusts nothing: said here instead.
  if (ca !== undefined) parseCertificate('ca_certificate', ca);
  if (cert !== undefined) parseCertificate('client_certificate', cert);
  try {
    return { rejectUnauthorized, secureContext: tls.createSecureContext({ ca, cert, key }) };
  } catch (err) {
    throw new Error(`client_key is not usable with client_certificate: ${reasonOf(err)}`);
  }
}

function parseCertificate(option: string, pem: string): void {
  try {
    new X509Certificate(pem);
  } catch (err) {
    throw new Error(`${option} is not a PEM certificate: ${reasonOf(err)}`);
  }
}

/** OpenSSL's reason ("no start line"), not its whole error string. */
function reasonOf(err: unknown): string {
  const e = err as { reason?: unknown; message?: string };
  return typeof e.reason === 'string' ? e.reason : (e.message ?? String(err));
}
