// What a TLS peer's certificate says, as plain data: names, validity, fingerprints and the
// chain it was sent with. Shared by the HTTPS and TLS_CERTIFICATE probers.
import type { DetailedPeerCertificate, PeerCertificate } from 'node:tls';
import { daysRemaining } from '../../../shared/src/days-remaining.js';

/** Chains are short; a cap keeps a hostile peer from making the result large. */
const MAX_CHAIN = 10;

export interface CertificateFacts {
  subject: string;
  issuer: string;
  valid_from: string;
  valid_to: string;
  days_remaining: number;
  serial: string;
  fingerprint256: string;
  chain: { subject: string; issuer: string; valid_to: string }[];
}

/** "CN=example.com, O=Example"; multi-valued attributes joined with "+". */
export function distinguishedName(entity: object | undefined): string {
  if (!entity) return '';
  return Object.entries(entity as Record<string, string | string[]>)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : v}`)
    .join(', ');
}

/** null when the peer sent no certificate. */
export function certificateFacts(cert: DetailedPeerCertificate | PeerCertificate | undefined, now: Date): CertificateFacts | null {
  if (!cert?.valid_to) return null;
  const validTo = new Date(cert.valid_to);
  return {
    subject: distinguishedName(cert.subject),
    issuer: distinguishedName(cert.issuer),
    valid_from: new Date(cert.valid_from).toISOString(),
    valid_to: validTo.toISOString(),
    days_remaining: daysRemaining(validTo, now),
    serial: cert.serialNumber,
    fingerprint256: cert.fingerprint256,
    chain: chainOf(cert as DetailedPeerCertificate),
  };
}

/** The leaf first, then each issuer the peer sent (or the trust store supplied). */
function chainOf(leaf: DetailedPeerCertificate): CertificateFacts['chain'] {
  const chain: CertificateFacts['chain'] = [];
  const seen = new Set<string>();
  // A self-signed root is its own issuerCertificate: the fingerprint ends the walk.
  for (let cert: DetailedPeerCertificate | undefined = leaf; cert?.valid_to && !seen.has(cert.fingerprint256) && chain.length < MAX_CHAIN; cert = cert.issuerCertificate) {
    seen.add(cert.fingerprint256);
    chain.push({ subject: distinguishedName(cert.subject), issuer: distinguishedName(cert.issuer), valid_to: new Date(cert.valid_to).toISOString() });
  }
  return chain;
}
