// Which issuer addresses single sign-on accepts: https, or plain http on a loopback address (a
// provider on the same host, and the tests). Anything else would send the client secret and
// accept ID tokens over a connection anyone on the path can read or change.
import ipaddr from 'ipaddr.js';

const DISCOVERY_SUFFIX = '/.well-known/openid-configuration';

/** True for localhost, 127.0.0.0/8 and ::1 (also as an IPv4-mapped address). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost') return true;
  if (!ipaddr.isValid(host)) return false;
  let address = ipaddr.parse(host);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
  return address.range() === 'loopback';
}

/** Why `issuer` is refused, or null when it is fine. */
export function issuerProblem(issuer: string): string | null {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return 'issuer must be a URL';
  }
  if (url.search || url.hash) return 'issuer must not have a query or a fragment';
  if (url.username || url.password) return 'issuer must not hold a user name or password';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return null;
  return 'issuer must use https (plain http only on a loopback address such as 127.0.0.1 or localhost)';
}

/** The issuer identifier from what an admin pasted: its discovery URL is accepted too. */
export function normalizeIssuer(raw: string): string {
  const trimmed = raw.trim();
  return trimmed.endsWith(DISCOVERY_SUFFIX) ? trimmed.slice(0, -DISCOVERY_SUFFIX.length) : trimmed;
}

/** Whether requests to the issuer go over plain http (allowed on loopback only). */
export function isPlainHttp(issuer: string): boolean {
  return new URL(issuer).protocol === 'http:';
}
