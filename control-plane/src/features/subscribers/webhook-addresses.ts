// Anyone may subscribe a webhook, so its URL could aim the control plane at the network it sits
// in (server-side request forgery). A webhook must reach public unicast addresses only: not
// loopback, private (RFC 1918, fc00::/7), link-local, carrier-grade NAT, unspecified, multicast
// or other special ranges, nor any address of this host. The URL is vetted when subscribed and
// again at every delivery, on the very addresses the connection then uses (DNS may have changed
// in between). SUBSCRIBER_WEBHOOKS_ALLOW_PRIVATE=true turns the guard off (an intranet's page).
import dns, { type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import os from 'node:os';
import ipaddr from 'ipaddr.js';

const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private (RFC 1918) address',
  uniqueLocal: 'a private (unique local, fc00::/7) address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT (100.64.0.0/10) address',
  unspecified: 'the unspecified address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
};

export class RefusedAddressError extends Error {}

/** Why a webhook may not reach `address`, or null when it may. */
export function refusalOf(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'not an address';
  }
  // ::ffff:10.0.0.1 reaches 10.0.0.1.
  if (parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress()) parsed = parsed.toIPv4Address();
  const range = parsed.range();
  if (range !== 'unicast') return RANGE_WORDS[range] ?? `a special-purpose (${range}) address`;
  return ownAddresses().has(parsed.toNormalizedString()) ? "this server's own address" : null;
}

/** Read at each check: interfaces come and go. */
function ownAddresses(): Set<string> {
  const own = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) {
    for (const i of list ?? []) {
      try {
        own.add(ipaddr.parse(i.address).toNormalizedString());
      } catch {
        // An address with a zone the parser does not know is link-local anyway, refused by range.
      }
    }
  }
  return own;
}

const refusedMessage = (host: string, address: string, why: string) =>
  `${host === address ? address : `${host} resolves to ${address}, which`} is ${why}; subscriber webhooks must reach public addresses`;

export interface WebhookAddressGuard {
  /** Throws RefusedAddressError (or the DNS error) unless every address of the URL's host may be reached. */
  vet(url: URL): Promise<void>;
  /** For http.request: resolves like dns.lookup and refuses what vet refuses, so the connection uses only vetted addresses. */
  lookup: LookupFunction;
  /** Throws RefusedAddressError for a literal address that may not be reached (no lookup happens for those). */
  vetLiteral(host: string): void;
}

export function webhookAddressGuard(allowPrivate: boolean): WebhookAddressGuard {
  const check = (host: string, addresses: string[]) => {
    if (allowPrivate) return;
    for (const address of addresses) {
      const why = refusalOf(address);
      if (why) throw new RefusedAddressError(refusedMessage(host, address, why));
    }
  };
  const vetLiteral = (host: string) => {
    if (isIP(host)) check(host, [host]);
  };
  const lookup: LookupFunction = (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, found: LookupAddress[]) => {
      if (err) return callback(err, '', 4);
      try {
        check(hostname, found.map((a) => a.address));
      } catch (refused) {
        return callback(refused as NodeJS.ErrnoException, '', 4);
      }
      // Node asks for every address when it races IPv4 and IPv6 (autoSelectFamily).
      if (options.all) (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, found);
      else callback(null, found[0]!.address, found[0]!.family);
    });
  };
  return {
    lookup,
    vetLiteral,
    async vet(url) {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host)) return vetLiteral(host);
      if (allowPrivate) return;
      const found = await dns.promises.lookup(host, { all: true, verbatim: true });
      check(host, found.map((a) => a.address));
    },
  };
}
