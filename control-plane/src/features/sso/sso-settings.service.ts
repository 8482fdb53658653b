// An organization's single sign-on settings, for its admins: read, replace, remove, and try a
// provider (discovery and the client's credentials) before or after saving it. The client
// secret is sealed at rest and never answered.
import type { SecretBox } from '../../crypto/secret-box.js';
import { notFound, validationFailed } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { ConnectionReport, OidcClient } from './oidc-client.js';
import type { SsoSettingsInput, SsoTestInput } from './sso.schema.js';
import type { SsoSettings, SsoSettingsRepository } from './sso-settings.repository.js';
import type { SsoUrls } from './sso-urls.js';

export interface SsoSettingsDeps {
  settings: SsoSettingsRepository;
  access: OrganizationAccess;
  box: SecretBox;
  oidc: OidcClient;
  urls: SsoUrls;
}

export interface SsoSettingsView {
  settings: SsoSettings;
  callbackUrl: string;
  startUrl: string;
}

export function createSsoSettingsService({ settings, access, box, oidc, urls }: SsoSettingsDeps) {
  const slugOf = async (organizationId: string) => {
    const slug = await settings.slugOf(organizationId);
    if (!slug) throw notFound('organization');
    return slug;
  };
  const view = async (s: SsoSettings): Promise<SsoSettingsView> => {
    const slug = await slugOf(s.organizationId);
    return { settings: s, callbackUrl: urls.callback(slug), startUrl: urls.start(slug) };
  };

  return {
    async get(actor: Actor): Promise<SsoSettingsView> {
      const organizationId = await access.resolveManaging(actor);
      const found = await settings.find(organizationId);
      if (!found) throw notFound('single sign-on settings');
      return view(found);
    },

    async put(actor: Actor, input: SsoSettingsInput): Promise<SsoSettingsView> {
      const organizationId = await access.resolveManaging(actor);
      const existing = await settings.find(organizationId);
      const sealed = input.client_secret !== undefined ? box.seal(input.client_secret) : existing?.clientSecretSealed;
      if (!sealed) throw validationFailed('client_secret is required when single sign-on is first set up', [{ path: 'client_secret', message: 'is required' }]);
      return view(
        await settings.save({
          organizationId,
          issuer: input.issuer,
          clientId: input.client_id,
          clientSecretSealed: sealed,
          allowedDomains: input.allowed_domains,
          groupsClaim: input.groups_claim,
          roleMapping: input.role_mapping,
          defaultRole: input.default_role,
          required: input.required,
          enabled: input.enabled,
        }),
      );
    },

    async remove(actor: Actor): Promise<void> {
      const organizationId = await access.resolveManaging(actor);
      if (!(await settings.delete(organizationId))) throw notFound('single sign-on settings');
    },

    /** Tries the given values, each missing one taken from the saved settings. */
    async test(actor: Actor, input: SsoTestInput): Promise<ConnectionReport> {
      const organizationId = await access.resolveManaging(actor);
      const saved = await settings.find(organizationId);
      const issuer = input.issuer ?? saved?.issuer;
      const clientId = input.client_id ?? saved?.clientId;
      const clientSecret = input.client_secret ?? (saved && box.open(saved.clientSecretSealed));
      if (!issuer || !clientId || !clientSecret) {
        const missing = [!issuer && 'issuer', !clientId && 'client_id', !clientSecret && 'client_secret'].filter((f): f is string => Boolean(f));
        throw validationFailed(`${missing.join(', ')} must be given: no single sign-on settings are saved`, missing.map((path) => ({ path, message: 'is required' })));
      }
      return oidc.test({ issuer, clientId, clientSecret }, urls.callback(await slugOf(organizationId)));
    },
  };
}

export type SsoSettingsService = ReturnType<typeof createSsoSettingsService>;
