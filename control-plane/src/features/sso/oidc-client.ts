// The OpenID Connect relying party, on openid-client (a certified implementation): discovery,
// the authorization request with PKCE, state and nonce, and the code exchange whose ID token
// the library validates (signature, issuer, audience, nonce, expiry) before anything here
// reads it. Everything protocol-shaped stays in this module; failures become OidcError with
// a sentence for a person.
import { createHash } from 'node:crypto';
import type * as OpenId from 'openid-client';
import { isPlainHttp } from './issuer-url.js';

export interface ProviderCredentials {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export interface Authorization {
  url: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface AuthorizationChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The person the provider vouched for, with the claims of the ID token and of userinfo. */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  claims: Record<string, unknown>;
}

export interface ConnectionReport {
  ok: boolean;
  message: string;
  metadata?: {
    issuer: string;
    authorization_endpoint?: string;
    token_endpoint?: string;
    userinfo_endpoint?: string;
    jwks_uri?: string;
    scopes_supported?: string[];
  };
  credentials: 'valid' | 'invalid' | 'unchecked';
}

export interface OidcClient {
  /** Where to send the browser, and the secrets the callback must match. */
  authorize(provider: ProviderCredentials, redirectUri: string): Promise<Authorization>;
  /** Validates the provider's answer at `callbackUrl` and exchanges its code. */
  complete(provider: ProviderCredentials, callbackUrl: URL, checks: AuthorizationChecks): Promise<VerifiedIdentity>;
  /** Discovery, then whether the token endpoint accepts the client's credentials. */
  test(provider: ProviderCredentials, redirectUri: string): Promise<ConnectionReport>;
}

export class OidcError extends Error {}

/** Scopes asked for when the provider offers them; openid always. */
const WANTED_SCOPES = ['openid', 'email', 'profile', 'groups'];
const DISCOVERY_CACHE_MS = 10 * 60_000;
const CACHE_ENTRIES = 500;
const TIMEOUT_SECONDS = 10;
/** A code no provider issued: the token endpoint authenticates the client before it refuses the code. */
const PROBE_CODE = 'outpost-connection-test';

/**
 * Loaded at the first single sign-on: the library keeps about 9 MB resident, which an
 * installation without SSO should not pay (P9, issue 44).
 */
let loading: Promise<typeof OpenId> | undefined;
let loaded: typeof OpenId | undefined;
const openid = () => (loading ??= import('openid-client').then((module) => (loaded = module)));

export function createOidcClient(now: () => number = Date.now): OidcClient {
  const cache = new Map<string, { at: number; config: Promise<OpenId.Configuration> }>();

  const configFor = (p: ProviderCredentials): Promise<OpenId.Configuration> => {
    const key = [p.issuer, p.clientId, createHash('sha256').update(p.clientSecret).digest('base64url')].join('\n');
    const hit = cache.get(key);
    if (hit && now() - hit.at < DISCOVERY_CACHE_MS) return hit.config;
    const config = openid()
      .then((client) =>
        client.discovery(new URL(p.issuer), p.clientId, { client_secret: p.clientSecret }, secretAuth(client, p.clientSecret), {
          timeout: TIMEOUT_SECONDS,
          ...(isPlainHttp(p.issuer) && { execute: [client.allowInsecureRequests] }),
        }),
      )
      .catch((err: unknown) => {
        cache.delete(key);
        throw new OidcError(`the discovery of ${p.issuer} failed: ${reason(err)}`);
      });
    if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(key, { at: now(), config });
    return config;
  };

  return {
    async authorize(p, redirectUri) {
      const client = await openid();
      const config = await configFor(p);
      const supported = config.serverMetadata().scopes_supported;
      const scope = WANTED_SCOPES.filter((s) => s === 'openid' || supported?.includes(s)).join(' ');
      const codeVerifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope,
        state,
        nonce,
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, state, nonce, codeVerifier };
    },

    async complete(p, callbackUrl, checks) {
      const client = await openid();
      const config = await configFor(p);
      let tokens: Awaited<ReturnType<typeof OpenId.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          pkceCodeVerifier: checks.codeVerifier,
          idTokenExpected: true,
        });
      } catch (err) {
        throw new OidcError(err instanceof client.AuthorizationResponseError ? `the identity provider refused: ${err.error_description ?? err.error}` : `the sign-in was refused: ${reason(err)}`);
      }
      const idToken = tokens.claims()!;
      let userinfo: Record<string, unknown> = {};
      if (config.serverMetadata().userinfo_endpoint && tokens.access_token) {
        try {
          userinfo = await client.fetchUserInfo(config, tokens.access_token, idToken.sub);
        } catch (err) {
          throw new OidcError(`the identity provider's userinfo failed: ${reason(err)}`);
        }
      }
      // The signed ID token wins where both say something.
      return { issuer: idToken.iss, subject: idToken.sub, claims: { ...userinfo, ...idToken } };
    },

    async test(p, redirectUri) {
      let config: OpenId.Configuration;
      try {
        config = await configFor(p);
      } catch (err) {
        return { ok: false, message: reason(err), credentials: 'unchecked' };
      }
      const m = config.serverMetadata();
      const metadata = {
        issuer: m.issuer,
        authorization_endpoint: m.authorization_endpoint,
        token_endpoint: m.token_endpoint,
        userinfo_endpoint: m.userinfo_endpoint,
        jwks_uri: m.jwks_uri,
        scopes_supported: m.scopes_supported,
      };
      const credentials = await probeCredentials(await openid(), config, redirectUri);
      if (credentials.verdict === 'invalid') return { ok: false, message: credentials.message, metadata, credentials: 'invalid' };
      return { ok: true, message: credentials.message, metadata, credentials: credentials.verdict };
    },
  };
}

/** client_secret_basic, the default of the specification, unless the provider takes only client_secret_post. */
function secretAuth(client: typeof OpenId, secret: string): OpenId.ClientAuth {
  const basic = client.ClientSecretBasic(secret);
  const post = client.ClientSecretPost(secret);
  return (as, c, body, headers) => {
    const methods = as.token_endpoint_auth_methods_supported;
    const postOnly = methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post');
    (postOnly ? post : basic)(as, c, body, headers);
  };
}

/**
 * Exchanges a code no one issued: `invalid_client` means the id or secret is wrong; any other
 * refusal came after the client was authenticated. A provider that answers neither way leaves
 * the credentials unchecked (discovery alone passed).
 */
async function probeCredentials(client: typeof OpenId, config: OpenId.Configuration, redirectUri: string): Promise<{ verdict: 'valid' | 'invalid' | 'unchecked'; message: string }> {
  try {
    await client.genericGrantRequest(config, 'authorization_code', { code: PROBE_CODE, redirect_uri: redirectUri });
    return { verdict: 'unchecked', message: 'discovery succeeded; the provider accepted a made-up code, so the credentials could not be checked' };
  } catch (err) {
    const error = oauthError(client, err);
    if (error === 'invalid_client') {
      return { verdict: 'invalid', message: `discovery succeeded, but the provider refused the client id or secret (${error})` };
    }
    if (error) return { verdict: 'valid', message: 'discovery succeeded and the provider accepted the client id and secret' };
    return { verdict: 'unchecked', message: `discovery succeeded; the client credentials could not be checked: ${reason(err)}` };
  }
}

/** The OAuth `error` code of a token endpoint's refusal, from its body or its WWW-Authenticate header. */
function oauthError(client: typeof OpenId, err: unknown): string | undefined {
  if (err instanceof client.ResponseBodyError) return err.error;
  if (err instanceof client.WWWAuthenticateChallengeError) {
    const error = err.cause.find((c) => c.parameters.error)?.parameters.error;
    return error ?? (err.status === 401 ? 'invalid_client' : undefined);
  }
  return undefined;
}

function reason(err: unknown): string {
  if (err instanceof OidcError) return err.message;
  // Errors of the library come after it loaded.
  if (loaded && err instanceof loaded.ResponseBodyError) return `${err.error}${err.error_description ? `: ${err.error_description}` : ''}`;
  // The library's own errors carry the precise check that failed in their cause.
  const e = err as { message?: string; cause?: unknown };
  const cause = e?.cause instanceof Error ? e.cause.message : e?.cause instanceof Response ? `HTTP ${e.cause.status}` : undefined;
  const message = e?.message ?? String(err);
  return cause && !message.includes(cause) ? `${message}: ${cause}` : message;
}
