// The links of subscriber mails and webhooks. A token is the subscriber's id signed with a key
// derived from the JWT secret for one purpose, so a confirmation token cannot unsubscribe
// anyone and an unsubscribe token cannot confirm. Confirmation links expire; unsubscribe links
// do not (RFC 8058: the link in an old mail must still work). A removed subscriber's tokens
// name an id that no longer exists, so they do nothing.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { validationFailed } from '../../errors.js';

export type LinkPurpose = 'confirm' | 'unsubscribe';

export const CONFIRM_LINK_TTL_MS = 7 * 86_400_000;

export interface SubscriptionLinks {
  confirmUrl(subscriberId: string): string;
  unsubscribeUrl(subscriberId: string): string;
  /** The subscriber id the token names; VALIDATION_FAILED when forged, expired or made for another purpose. */
  verify(purpose: LinkPurpose, token: string): string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function createSubscriptionLinks({ secret, publicUrl, clock }: { secret: string; publicUrl: string; clock: Clock }): SubscriptionLinks {
  const keys: Record<LinkPurpose, Buffer> = {
    confirm: createHmac('sha256', secret).update('outpost subscriber link: confirm').digest(),
    unsubscribe: createHmac('sha256', secret).update('outpost subscriber link: unsubscribe').digest(),
  };
  const mac = (purpose: LinkPurpose, body: string) => createHmac('sha256', keys[purpose]).update(body).digest();

  function sign(purpose: LinkPurpose, subscriberId: string, expiresAt: number | null): string {
    const body = `${subscriberId}.${expiresAt === null ? '' : expiresAt.toString(36)}`;
    return `${body}.${mac(purpose, body).toString('base64url')}`;
  }
  const url = (purpose: LinkPurpose, token: string) => `${publicUrl}/api/v1/subscriptions/${purpose}?token=${token}`;

  return {
    confirmUrl: (id) => url('confirm', sign('confirm', id, clock.now().getTime() + CONFIRM_LINK_TTL_MS)),
    unsubscribeUrl: (id) => url('unsubscribe', sign('unsubscribe', id, null)),
    verify(purpose, token) {
      const [id, expires, signature] = token.split('.');
      const given = Buffer.from(signature ?? '', 'base64url');
      const wanted = id === undefined || expires === undefined ? undefined : mac(purpose, `${id}.${expires}`);
      if (!wanted || token.split('.').length !== 3 || !UUID.test(id!) || given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
        throw validationFailed('this link is not valid: it may have been cut short or changed');
      }
      if (expires && parseInt(expires, 36) < clock.now().getTime()) throw validationFailed('this confirmation link has expired: subscribe again to get a new one');
      return id!;
    },
  };
}
