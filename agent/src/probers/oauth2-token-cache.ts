// OAuth2's client-credentials grant (RFC 6749 4.4) for the checks that set `oauth2`: a token is
// asked of the token endpoint and kept until shortly before it expires, so that a check every
// 30 s does not ask for one every 30 s. Expiry is a timestamp read when a token is wanted:
// nothing runs while the agent waits.
import type { CheckOptions } from '../../../shared/src/check-options.js';
import type { HttpClient } from './http-client.js';
import { describeNetworkError } from './network-errors.js';
import type { ProbeSignal } from './probe-signal.js';

export type OAuth2Grant = NonNullable<CheckOptions<'HTTP'>['oauth2']>;

export interface TokenCache {
  /** An access token for `grant`: the cached one, or a new one asked for through `client`. */
  token(grant: OAuth2Grant, client: HttpClient, signal: ProbeSignal): Promise<string>;
}

/** A token is renewed this long before it expires, or a tenth of its lifetime when that is shorter. */
const RENEW_EARLY_MS = 30_000;

export function createTokenCache(now: () => number = Date.now): TokenCache {
  const tokens = new Map<string, { token: string; renewAt: number }>();
  return {
    async token(grant, client, signal) {
      // The secret is part of the key: a check with a wrong secret must not pass on a token
      // another check's right one obtained.
      const key = JSON.stringify([grant.token_url, grant.client_id, grant.client_secret, grant.scopes?.join(' '), grant.audience]);
      const cached = tokens.get(key);
      if (cached && now() < cached.renewAt) return cached.token;
      const asked = now();
      const { token, lifetimeMs } = await requestToken(grant, client, signal);
      // Tokens of grants no check uses any more go when a token is stored, not on a timer.
      for (const [k, t] of tokens) if (t.renewAt <= asked) tokens.delete(k);
      // A token without expires_in serves the check that asked for it only.
      if (lifetimeMs !== undefined) tokens.set(key, { token, renewAt: asked + lifetimeMs - Math.min(RENEW_EARLY_MS, lifetimeMs / 10) });
      return token;
    },
  };
}

interface TokenReply {
  access_token?: unknown;
  token_type?: unknown;
  expires_in?: unknown;
  error?: unknown;
  error_description?: unknown;
}

async function requestToken(grant: OAuth2Grant, client: HttpClient, signal: ProbeSignal): Promise<{ token: string; lifetimeMs?: number }> {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (grant.scopes?.length) form.set('scope', grant.scopes.join(' '));
  if (grant.audience !== undefined) form.set('audience', grant.audience);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  // client_secret_basic, which every server supports (RFC 6749 2.3.1); a public client names itself in the form.
  if (grant.client_secret !== undefined) headers.authorization = `Basic ${Buffer.from(`${formEncoded(grant.client_id)}:${formEncoded(grant.client_secret)}`).toString('base64')}`;
  else form.set('client_id', grant.client_id);
  const failure = `OAuth2 token request to ${grant.token_url} failed`;
  let exchange;
  try {
    exchange = await client.exchange({ url: new URL(grant.token_url), method: 'POST', headers, body: form.toString() }, signal);
  } catch (err) {
    if (signal.aborted) throw err;
    throw new Error(`${failure}: ${describeNetworkError(err)}`);
  }
  const reply = parseReply(exchange.body);
  if (exchange.status !== 200 || typeof reply.access_token !== 'string') {
    const error = typeof reply.error === 'string' ? ` ${reply.error}` : '';
    const description = typeof reply.error_description === 'string' ? ` (${reply.error_description})` : '';
    const why = error || exchange.status !== 200 ? `${error}${description}` : ' without an access_token';
    throw new Error(`${failure}: HTTP ${exchange.status}${why}`);
  }
  if (typeof reply.token_type === 'string' && reply.token_type.toLowerCase() !== 'bearer') throw new Error(`${failure}: token_type "${reply.token_type}" is not Bearer`);
  const expiresIn = reply.expires_in === undefined ? undefined : Number(reply.expires_in);
  return { token: reply.access_token, lifetimeMs: expiresIn !== undefined && expiresIn > 0 ? expiresIn * 1000 : undefined };
}

function parseReply(body: string): TokenReply {
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed && typeof parsed === 'object' ? (parsed as TokenReply) : {};
  } catch {
    return {};
  }
}

/** application/x-www-form-urlencoded, as RFC 6749 2.3.1 wants the id and secret before base64. */
function formEncoded(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}
