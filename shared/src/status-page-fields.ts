// The rules of a status page's fields that the API and outpost.yaml share: who may see a page,
// slugs and custom domains, and allowlist ranges kept in one normal form, so that the CLI's
// plan compares what it sends with what the API stored.
import ipaddr from 'ipaddr.js';

export const PAGE_ACCESS = ['public', 'password', 'members', 'ip_allowlist'] as const;
export type PageAccess = (typeof PAGE_ACCESS)[number];

export const PAGE_SLUG = /^[a-z0-9](?:[a-z0-9_-]{0,61}[a-z0-9])?$/;
/** A dotted host name; its length (at most 253) is checked apart, a lookahead being unreadable to the fuzzer's generator. */
export const PAGE_DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;
export const PAGE_DOMAIN_MAX_LENGTH = 253;

/** An address or CIDR range in its normal form ("10.20.0.0/16", "2001:db8::/32"); null when it is neither. */
export function normalRange(text: string): string | null {
  const trimmed = text.trim();
  try {
    const [address, bits] = trimmed.includes('/') ? ipaddr.parseCIDR(trimmed) : [ipaddr.parse(trimmed), undefined];
    return bits === undefined ? address.toString() : `${address.toString()}/${bits}`;
  } catch {
    return null;
  }
}

export const notARange = (text: string) => `"${text.trim()}" is not an IPv4 or IPv6 address or CIDR range`;
