// "SSO required": an organization that requires single sign-on admits no password. A password
// sign-in landing in it, and a session not started by its provider switching into it, are
// refused with SSO_REQUIRED naming where to sign in instead. Its owners keep a break-glass
// password (the provider may be down or misconfigured), and every use of it is audited.
import { AppError } from '../../errors.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { Actor } from '../auth/actor.js';
import type { Role } from '../organizations/membership.entity.js';
import type { SsoSettingsRepository } from './sso-settings.repository.js';
import type { SsoUrls } from './sso-urls.js';

export interface SsoGateDeps {
  settings: Pick<SsoSettingsRepository, 'find' | 'slugOf'>;
  roleOf(userId: string, organizationId: string): Promise<Role | null>;
  audit: AuditTrail;
  urls: SsoUrls;
}

export interface SsoGate {
  /** Before a password sign-in lands in the organization. */
  assertPasswordSignIn(user: { id: string; email: string }, organizationId: string, address: string): Promise<void>;
  /** Before a session acting elsewhere gets a token for the organization. */
  assertSwitch(actor: Actor, organizationId: string, address: string | null): Promise<void>;
}

export function createSsoGate({ settings, roleOf, audit, urls }: SsoGateDeps): SsoGate {
  /** The organization's issuer when it requires single sign-on, else null. */
  const requiredIssuer = async (organizationId: string) => {
    const s = await settings.find(organizationId);
    return s?.enabled && s.required ? s.issuer : null;
  };
  /** Lets an owner through with an audit row; refuses anyone else (a refused sign-in audited too). */
  const breakGlassOrRefuse = async (user: { id: string; email: string }, organizationId: string, address: string | null, how: 'password' | 'switch') => {
    const actor = { userId: user.id, email: user.email };
    if ((await roleOf(user.id, organizationId)) === 'owner') {
      await audit.record({ organizationId, actor, address, action: 'break_glass', resource: 'session', resourceId: null, after: { method: how } });
      return;
    }
    if (how === 'password') await audit.record({ organizationId, actor, address, action: 'sign_in_failed', resource: 'session', resourceId: null, after: { method: how, reason: 'sso_required' } });
    const slug = await settings.slugOf(organizationId);
    throw new AppError('SSO_REQUIRED', `this organization requires single sign-on: sign in at ${slug ? urls.start(slug) : 'its identity provider'}`);
  };

  return {
    async assertPasswordSignIn(user, organizationId, address) {
      if (await requiredIssuer(organizationId)) await breakGlassOrRefuse(user, organizationId, address, 'password');
    },
    async assertSwitch(actor, organizationId, address) {
      const issuer = await requiredIssuer(organizationId);
      if (!issuer) return;
      // A session its provider started elsewhere counts: the same provider vouched for the person.
      if (actor.signInMethod === 'sso') {
        const from = await settings.find(actor.organizationId);
        if (from?.issuer === issuer) return;
      }
      await breakGlassOrRefuse({ id: actor.userId, email: actor.email }, organizationId, address, 'switch');
    },
  };
}
