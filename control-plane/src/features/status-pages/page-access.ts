// Whether a visitor may see a status page (its `access`): anyone; anyone holding the signed
// cookie the right password earns; signed-in members of its organization; or clients whose
// address is in the page's allowlist. A page the visitor may not see is not found, exactly
// like an unknown slug, except that a password page asks for its password.
import { createHmac, timingSafeEqual } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { AppError, notFound } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { StatusPage } from './status-pages.repository.js';
import type { Visitor } from './visitor.js';

/** How long the right password opens a page in one browser. */
export const UNLOCK_TTL_SECONDS = 7 * 86_400;

export interface PageAccessDeps {
  /** Signs the unlock cookies; a new JWT secret signs every visitor out. */
  signingKey: string;
  verifyCredential: (credential: string) => Promise<Actor>;
  isMember: (actor: Actor, organizationId: string) => Promise<boolean>;
  now: () => Date;
}

export const unlockCookieName = (page: Pick<StatusPage, 'id'>) => `outpost_status_${page.id.replaceAll('-', '')}`;

export function createPageAccess({ signingKey, verifyCredential, isMember, now }: PageAccessDeps) {
  // The password hash is part of what is signed: a new password locks out earlier cookies.
  const signature = (page: StatusPage, expires: number) =>
    createHmac('sha256', signingKey).update(`status-page-unlock\n${page.id}\n${page.passwordHash}\n${expires}`).digest('base64url');

  function hasUnlocked(page: StatusPage, visitor: Visitor): boolean {
    const [expires, signed] = (visitor.cookie(unlockCookieName(page)) ?? '').split('.');
    if (!expires || !signed || !/^\d+$/.test(expires) || Number(expires) * 1000 <= now().getTime()) return false;
    const expected = Buffer.from(signature(page, Number(expires)));
    const given = Buffer.from(signed);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  async function isSignedInMember(page: StatusPage, visitor: Visitor): Promise<boolean> {
    if (!visitor.credential) return false;
    const actor = await verifyCredential(visitor.credential).catch(() => undefined);
    return actor !== undefined && (await isMember(actor, page.organizationId));
  }

  return {
    /** Throws when the visitor may not see the page: not found, or for a password page, PASSWORD_REQUIRED. */
    async admit(page: StatusPage, visitor: Visitor): Promise<void> {
      switch (page.access) {
        case 'public':
          return;
        case 'password':
          if (hasUnlocked(page, visitor) || (await isSignedInMember(page, visitor))) return;
          throw new AppError('PASSWORD_REQUIRED', 'this status page needs its password');
        case 'members':
          if (await isSignedInMember(page, visitor)) return;
          throw notFound('status page');
        case 'ip_allowlist':
          if (inAllowlist(visitor.ip, page.ipAllowlist) || (await isSignedInMember(page, visitor))) return;
          throw notFound('status page');
      }
    },
    /** The cookie value that opens a password page until it expires. */
    unlockCookie(page: StatusPage): { value: string; maxAgeSeconds: number } {
      const expires = Math.floor(now().getTime() / 1000) + UNLOCK_TTL_SECONDS;
      return { value: `${expires}.${signature(page, expires)}`, maxAgeSeconds: UNLOCK_TTL_SECONDS };
    },
  };
}

export type PageAccessCheck = ReturnType<typeof createPageAccess>;

/** Whether an address falls in one of the ranges; an IPv4-mapped IPv6 address counts as IPv4. */
export function inAllowlist(address: string, ranges: readonly string[]): boolean {
  let client: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    client = ipaddr.process(address);
  } catch {
    return false;
  }
  return ranges.some((range) => {
    const [network, bits] = range.includes('/') ? ipaddr.parseCIDR(range) : [ipaddr.parse(range), undefined];
    if (network.kind() !== client.kind()) return false;
    return client.match(network, bits ?? (network.kind() === 'ipv4' ? 32 : 128));
  });
}
