// Assembles single sign-on for the composition root: the admins' settings, the browser's
// sign-in, and the gate that password sign-ins and organization switches pass.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../clock.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Tx } from '../../db/tx.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import { createOidcClient } from './oidc-client.js';
import { createSsoAccountsRepository } from './sso-accounts.repository.js';
import { createSsoGate, type SsoGate } from './sso-gate.js';
import { createSsoLoginsRepository } from './sso-logins.repository.js';
import { createSsoProvisioning } from './sso-provisioning.js';
import { createSsoSettingsRepository } from './sso-settings.repository.js';
import { createSsoSettingsService, type SsoSettingsService } from './sso-settings.service.js';
import { createSsoSignInService, type SsoSignInService } from './sso-sign-in.service.js';
import { ssoUrls } from './sso-urls.js';

export interface SsoFeatureDeps {
  em: () => EntityManager;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  box: SecretBox;
  access: OrganizationAccess;
  sessions: Pick<SessionsService, 'start' | 'endOfUserInOrganization'>;
  audit: AuditTrail;
  /** PUBLIC_URL: the callback registered at providers is built on it. */
  publicUrl: string;
  clock: Clock;
}

export interface SsoFeature {
  settings: SsoSettingsService;
  signIn: SsoSignInService;
  gate: SsoGate;
}

export function createSsoFeature(d: SsoFeatureDeps): SsoFeature {
  const settings = createSsoSettingsRepository(d.em);
  const oidc = createOidcClient();
  const urls = ssoUrls(d.publicUrl);
  const provisioning = createSsoProvisioning({
    accounts: createSsoAccountsRepository(),
    transaction: d.transaction,
    audit: d.audit,
    endSessions: (userId, organizationId) => d.sessions.endOfUserInOrganization(userId, organizationId),
  });
  return {
    settings: createSsoSettingsService({ settings, access: d.access, box: d.box, oidc, urls }),
    signIn: createSsoSignInService({
      settings, logins: createSsoLoginsRepository(d.em), oidc, provisioning, sessions: d.sessions, audit: d.audit, box: d.box, urls, clock: d.clock,
    }),
    gate: createSsoGate({ settings, roleOf: settings.roleOf, audit: d.audit, urls }),
  };
}
