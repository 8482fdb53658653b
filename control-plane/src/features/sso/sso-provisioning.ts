// Just-in-time accounts: what a verified identity does to the organization's members at each
// sign-in. The identity (issuer, subject) is linked to one user; the first sign-in creates that
// user, or links the user who registered the same verified e-mail; every sign-in sets the
// role its groups map to; a person no longer allowed loses the membership (and its sessions).
// Owners are never changed by a provider. Each change and its audit row share a transaction.
import type { Tx } from '../../db/tx.js';
import { AppError } from '../../errors.js';
import type { AuditEntry, AuditTrail } from '../audit/audit-trail.js';
import type { Role } from '../organizations/membership.entity.js';
import type { VerifiedIdentity } from './oidc-client.js';
import { admission } from './role-mapping.js';
import type { SsoAccountsRepository, SsoUser } from './sso-accounts.repository.js';
import type { SsoSettings } from './sso-settings.repository.js';

export interface SsoProvisioningDeps {
  accounts: SsoAccountsRepository;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  audit: AuditTrail;
  /** Ends the user's sessions in the organization on every replica. */
  endSessions(userId: string, organizationId: string): Promise<number>;
}

export interface Admitted {
  user: SsoUser;
  role: Role;
}

type Outcome = { admitted: Admitted } | { refused: string; removed: SsoUser | null };

export function createSsoProvisioning({ accounts, transaction, audit, endSessions }: SsoProvisioningDeps) {
  return {
    /** The member the identity signs in as; FORBIDDEN (after any removal is committed) when not allowed. */
    async admit(settings: SsoSettings, identity: VerifiedIdentity, address: string): Promise<Admitted> {
      const { email, emailVerified, fullName } = personOf(identity.claims);
      const organizationId = settings.organizationId;
      const outcome = await transaction(async (tx): Promise<Outcome> => {
        const record = (entry: Omit<AuditEntry, 'organizationId' | 'address'>) => audit.record({ organizationId, address, ...entry }, tx);
        const refuse = async (reason: string, user: SsoUser | null, removed = false): Promise<Outcome> => {
          await record({ actor: { userId: user?.id ?? null, email }, action: 'sign_in_failed', resource: 'session', resourceId: null, after: { method: 'sso', reason } });
          return { refused: reason, removed: removed ? user : null };
        };
        const decision = admission(settings, email, identity.claims);
        let user = await accounts.userByIdentity(tx, identity.issuer, identity.subject);
        if (!user) {
          const registered = await accounts.userByEmail(tx, email);
          if (registered && !emailVerified) return refuse('an account with this e-mail address exists, and the identity provider does not say the address is verified', null);
          if (!registered && !decision.allowed) return refuse(decision.reason, null);
          user = registered ?? (await accounts.createUser(tx, { email, fullName }));
          if (!registered) {
            await record({ actor: { userId: user.id, email }, action: 'create', resource: 'user', resourceId: user.id, after: { email, full_name: fullName, source: 'sso', issuer: identity.issuer } });
          }
        }
        await accounts.linkIdentity(tx, { issuer: identity.issuer, subject: identity.subject, userId: user.id, email });
        const actor = { userId: user.id, email: user.email };
        const current = await accounts.lockedRole(tx, organizationId, user.id);
        if (current === 'owner') {
          // The provider never changes an owner; the domain still has to be the organization's.
          if (!decision.allowed && decision.because === 'domain') return refuse(decision.reason, user);
          return { admitted: { user, role: 'owner' } };
        }
        if (!decision.allowed) {
          if (current) {
            await accounts.removeMember(tx, organizationId, user.id);
            await record({ actor, action: 'delete', resource: 'member', resourceId: user.id, before: { role: current, email: user.email }, after: { reason: decision.reason, source: 'sso' } });
          }
          return refuse(decision.reason, user, current !== null);
        }
        if (!current) {
          await accounts.addMember(tx, organizationId, user.id, decision.role);
          await record({ actor, action: 'create', resource: 'member', resourceId: user.id, after: { role: decision.role, email: user.email, source: 'sso' } });
        } else if (current !== decision.role) {
          await accounts.setRole(tx, organizationId, user.id, decision.role);
          await record({ actor, action: 'update', resource: 'member', resourceId: user.id, before: { role: current }, after: { role: decision.role, source: 'sso' } });
        }
        return { admitted: { user, role: decision.role } };
      });
      if ('admitted' in outcome) return outcome.admitted;
      if (outcome.removed) await endSessions(outcome.removed.id, organizationId);
      throw new AppError('FORBIDDEN', outcome.refused);
    },
  };
}

export type SsoProvisioning = ReturnType<typeof createSsoProvisioning>;

/** The person's e-mail (required), whether the provider verified it, and a name to show. */
function personOf(claims: Record<string, unknown>): { email: string; emailVerified: boolean; fullName: string } {
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new AppError('FORBIDDEN', 'the identity provider gave no e-mail address; allow the "email" scope for this client');
  const emailVerified = claims.email_verified === true || claims.email_verified === 'true';
  const given = [claims.given_name, claims.family_name].filter((n): n is string => typeof n === 'string' && n.trim() !== '').join(' ');
  const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim() : given || email.slice(0, email.indexOf('@'));
  return { email, emailVerified, fullName: name.slice(0, 200) };
}
