// The sign-in itself: start (state, nonce and PKCE verifier kept here, bound to the browser),
// callback (the provider's answer validated, the state used once, the person admitted), and
// the exchange of the one-time code the dashboard receives for a session like a password
// sign-in's. No token ever travels in a URL: the callback hands the dashboard a code of 60 s.
import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { AppError } from '../../errors.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { SessionsService, SignInContext, StartedSession } from '../sessions/sessions.service.js';
import { OidcError, type OidcClient } from './oidc-client.js';
import { emailDomain } from './role-mapping.js';
import type { SsoLoginsRepository } from './sso-logins.repository.js';
import type { SsoProvisioning } from './sso-provisioning.js';
import type { SsoSettings, SsoSettingsRepository } from './sso-settings.repository.js';
import type { SsoUrls } from './sso-urls.js';

export interface SsoSignInDeps {
  settings: SsoSettingsRepository;
  logins: SsoLoginsRepository;
  oidc: OidcClient;
  provisioning: SsoProvisioning;
  sessions: Pick<SessionsService, 'start'>;
  audit: AuditTrail;
  box: SecretBox;
  urls: SsoUrls;
  clock: Clock;
}

/** The callback's query; the rest of it (code, iss, error) is read by the OpenID library. */
export interface CallbackParams {
  state?: string;
}

const LOGIN_TTL_MS = 10 * 60_000;
const CODE_TTL_MS = 60_000;
const DEFAULT_LANDING = '/services';
const BROWSER_KEY = /^[A-Za-z0-9_-]{43}$/;

const digest = (value: string) => createHash('sha256').update(value).digest('base64url');
const randomToken = () => randomBytes(32).toString('base64url');
const NOT_SET_UP = (slug: string) => new AppError('NOT_FOUND', `single sign-on is not set up for the organization "${slug}"`);
const STALE = 'this sign-in is unknown, expired or already used; start signing in again';

export function createSsoSignInService(d: SsoSignInDeps) {
  const enabledSettings = async (slug: string): Promise<SsoSettings> => {
    const organization = await d.settings.organizationBySlug(slug);
    const settings = organization && (await d.settings.find(organization.id));
    if (!settings?.enabled) throw NOT_SET_UP(slug);
    return settings;
  };
  const credentials = (s: SsoSettings) => ({ issuer: s.issuer, clientId: s.clientId, clientSecret: d.box.open(s.clientSecretSealed) });
  const refused = (err: unknown): never => {
    if (err instanceof OidcError) throw new AppError('UNAUTHENTICATED', err.message);
    throw err;
  };

  return {
    /** Where to send the browser, and the key its cookie keeps (the one it had, if any). */
    async start(slug: string, redirect: string | undefined, browserKey: string | undefined): Promise<{ location: string; browserKey: string }> {
      const settings = await enabledSettings(slug);
      const authorization = await d.oidc.authorize(credentials(settings), d.urls.callback(slug)).catch(refused);
      const key = browserKey && BROWSER_KEY.test(browserKey) ? browserKey : randomToken();
      const now = d.clock.now();
      await d.logins.savePending(
        {
          stateHash: digest(authorization.state),
          organizationId: settings.organizationId,
          browserHash: digest(key),
          nonce: authorization.nonce,
          codeVerifierSealed: d.box.seal(authorization.codeVerifier),
          redirect: redirect ?? DEFAULT_LANDING,
          expiresAt: new Date(now.getTime() + LOGIN_TTL_MS),
        },
        now,
      );
      return { location: authorization.url, browserKey: key };
    },

    /** Validates the provider's answer; the dashboard's address that finishes the sign-in with a one-time code. */
    async callback(slug: string, params: CallbackParams, query: string, browserKey: string | undefined, address: string): Promise<string> {
      const settings = await enabledSettings(slug);
      if (!params.state || !browserKey) throw new AppError('UNAUTHENTICATED', STALE);
      const now = d.clock.now();
      const pending = await d.logins.takePending(digest(params.state), digest(browserKey), settings.organizationId, now);
      if (!pending) throw new AppError('UNAUTHENTICATED', STALE);
      const callbackUrl = new URL(`${d.urls.callback(slug)}?${query}`);
      const identity = await d.oidc
        .complete(credentials(settings), callbackUrl, { state: params.state, nonce: pending.nonce, codeVerifier: d.box.open(pending.codeVerifierSealed) })
        .catch(refused);
      const { user } = await d.provisioning.admit(settings, identity, address);
      const code = randomToken();
      await d.logins.saveCode({ codeHash: digest(code), userId: user.id, organizationId: settings.organizationId, redirect: pending.redirect, expiresAt: new Date(now.getTime() + CODE_TTL_MS) }, now);
      return `/sign-in/sso?code=${encodeURIComponent(code)}`;
    },

    /** The session for a code of the callback, once. */
    async exchange(code: string, context: SignInContext): Promise<StartedSession & { email: string; redirect: string }> {
      const taken = await d.logins.takeCode(digest(code), d.clock.now());
      if (!taken) throw new AppError('UNAUTHENTICATED', 'this sign-in code is unknown, expired or already used; sign in again');
      const started = await d.sessions.start({ id: taken.userId, email: taken.email }, taken.organizationId, 'sso', context);
      await d.audit.record({
        organizationId: taken.organizationId,
        actor: { userId: taken.userId, email: taken.email },
        address: context.address,
        action: 'sign_in',
        resource: 'session',
        resourceId: started.sessionId,
        after: { method: 'sso' },
      });
      return { ...started, email: taken.email, redirect: taken.redirect };
    },

    /** The organization whose single sign-on serves an e-mail address, or the named one. */
    async discover(query: { email?: string; organization?: string }): Promise<{ organization: string; startUrl: string }> {
      if (query.organization !== undefined) {
        await enabledSettings(query.organization);
        return { organization: query.organization, startUrl: d.urls.start(query.organization) };
      }
      const found = await d.settings.enabledByDomain(emailDomain(query.email!));
      if (!found) throw new AppError('NOT_FOUND', `no organization uses single sign-on for the e-mail domain "${emailDomain(query.email!)}"`);
      return { organization: found.slug, startUrl: d.urls.start(found.slug) };
    },
  };
}

export type SsoSignInService = ReturnType<typeof createSsoSignInService>;
