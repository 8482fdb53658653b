// /organization/sso: an organization's single sign-on settings (admins). /auth/sso: the public
// half a browser walks through (start → provider → callback → dashboard), the exchange of the
// callback's one-time code for a session, and finding the organization of an e-mail domain.
import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { AppError } from '../../errors.js';
import { actorOf } from '../../http/authenticate.js';
import { schemeOf } from '../../http/client-address.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import { SessionJson, sessionAnswer, signInContext } from '../sessions/sessions.routes.js';
import type { ConnectionReport } from './oidc-client.js';
import {
  SlugParam, SsoCallbackQuery, SsoDiscoverQuery, SsoDiscoveryJson, SsoExchangeInput, SsoSettingsInput, SsoSettingsJson, SsoStartQuery, SsoTestInput, SsoTestJson, toSsoSettingsJson,
} from './sso.schema.js';
import type { SsoSettingsService } from './sso-settings.service.js';
import type { SsoSignInService } from './sso-sign-in.service.js';

/** Binds a sign-in under way to the browser that started it. */
const COOKIE = 'outpost_sso';
const COOKIE_PATH = '/api/v1/auth/sso';
const COOKIE_MAX_AGE_MS = 10 * 60_000;

const tag = 'Single sign-on';
const slug = { slug: SlugParam };
const SsoSessionJson = SessionJson.extend({
  email: z.string().meta({ description: 'The e-mail address of the user signed in' }),
  redirect: z.string().meta({ description: 'The dashboard path the sign-in was started for' }),
});

export const ssoOperations: ApiOperation[] = [
  { method: 'get', path: '/organization/sso', tag, summary: 'Read the single sign-on settings (admin)', responses: { 200: SsoSettingsJson }, errors: [404] },
  {
    method: 'put', path: '/organization/sso', tag, summary: 'Set up or change single sign-on with an OpenID Connect provider (admin)',
    description: 'The issuer must use https (plain http only on a loopback address). client_secret is write-only and kept when left out. A domain another organization claims is a 409.',
    body: SsoSettingsInput, responses: { 200: SsoSettingsJson }, errors: [409],
  },
  { method: 'delete', path: '/organization/sso', tag, summary: 'Remove single sign-on (admin)', responses: { 204: null }, errors: [404] },
  {
    method: 'post', path: '/organization/sso/test', tag, summary: 'Try the provider: discovery and the client credentials (admin)',
    description: 'Fields left out come from the saved settings. Answers 200 with ok false and a message saying what failed.',
    body: SsoTestInput, bodyOptional: true, responses: { 200: SsoTestJson },
  },
  {
    method: 'get', path: '/auth/sso/discover', tag, summary: 'The organization whose single sign-on serves an e-mail domain, or the named organization', public: true,
    query: SsoDiscoverQuery, responses: { 200: SsoDiscoveryJson }, errors: [404],
  },
  {
    method: 'get', path: '/auth/sso/:slug/start', tag, summary: 'Start signing in: a redirect to the identity provider', public: true,
    description: 'Sets an HttpOnly cookie binding the sign-in to this browser. Failures redirect to /sign-in?sso_error=<message>.',
    params: slug, query: SsoStartQuery, responses: { 302: null },
  },
  {
    method: 'get', path: '/auth/sso/:slug/callback', tag, summary: "The provider's answer: validated, then a redirect to the dashboard with a one-time code", public: true,
    description: 'Register this address at the provider as the redirect URI. Success redirects to /sign-in/sso?code=<one-time code, 60 s>; failures to /sign-in?sso_error=<message>.',
    params: slug, query: SsoCallbackQuery, responses: { 302: null },
  },
  {
    method: 'post', path: '/auth/sso/exchange', tag, summary: "Exchange the callback's one-time code for a session", public: true,
    description: 'The answer of a password sign-in, and the path the sign-in was started for. Each code works once, for 60 seconds.',
    body: SsoExchangeInput, responses: { 200: SsoSessionJson }, errors: [401],
  },
];

const toTestJson = (r: ConnectionReport) => ({ ok: r.ok, message: r.message, credentials: r.credentials, ...r.metadata });

export function ssoSettingsRoutes(service: SsoSettingsService): Router {
  const router = new Router({ prefix: '/organization/sso' });
  router.get('/', async (ctx) => {
    ctx.body = toSsoSettingsJson(await service.get(actorOf(ctx)));
  });
  router.put('/', async (ctx) => {
    ctx.body = toSsoSettingsJson(await service.put(actorOf(ctx), parseInput(SsoSettingsInput, ctx.request.body)));
  });
  router.delete('/', async (ctx) => {
    await service.remove(actorOf(ctx));
    ctx.status = 204;
  });
  router.post('/test', async (ctx) => {
    const input = ctx.request.body === undefined ? {} : parseInput(SsoTestInput, ctx.request.body);
    ctx.body = toTestJson(await service.test(actorOf(ctx), input));
  });
  return router;
}

export function ssoSignInRoutes(service: SsoSignInService): Router {
  const router = new Router({ prefix: '/auth/sso' });
  const slugOf = (ctx: { params: Record<string, string | undefined> }) => parseInput(SlugParam, ctx.params.slug?.toLowerCase(), 'organization slug');

  router.get('/discover', async (ctx) => {
    const found = await service.discover(parseInput(SsoDiscoverQuery, ctx.query, 'query'));
    ctx.body = { organization: found.organization, start_url: found.startUrl };
  });

  router.get('/:slug/start', async (ctx) => {
    const organization = slugOf(ctx);
    const { redirect } = parseInput(SsoStartQuery, ctx.query, 'query');
    await redirectOrFail(ctx, async () => {
      const started = await service.start(organization, redirect, ctx.cookies.get(COOKIE));
      const secure = schemeOf(ctx) === 'https';
      if (secure) ctx.cookies.secure = true;
      ctx.cookies.set(COOKIE, started.browserKey, { httpOnly: true, sameSite: 'lax', path: COOKIE_PATH, maxAge: COOKIE_MAX_AGE_MS, secure, overwrite: true });
      return started.location;
    });
  });

  router.get('/:slug/callback', async (ctx) => {
    const organization = slugOf(ctx);
    await redirectOrFail(ctx, async () => {
      const params = parseInput(SsoCallbackQuery, ctx.query, 'query');
      return service.callback(organization, params, ctx.querystring, ctx.cookies.get(COOKIE), ctx.ip);
    });
  });

  router.post('/exchange', async (ctx) => {
    const { code } = parseInput(SsoExchangeInput, ctx.request.body);
    const started = await service.exchange(code, signInContext(ctx));
    ctx.body = { ...sessionAnswer(started), email: started.email, redirect: started.redirect };
  });
  return router;
}

/**
 * A browser's step of the sign-in: the next address, or back to the sign-in page with what
 * went wrong. A failure the code did not expect is logged, and told in general words.
 */
async function redirectOrFail(ctx: Pick<Context, 'state' | 'set' | 'redirect'>, step: () => Promise<string>): Promise<void> {
  let location: string;
  try {
    location = await step();
  } catch (err) {
    if (!(err instanceof AppError)) ctx.state.log?.error({ err }, 'single sign-on failed');
    const message = err instanceof AppError ? err.message : 'single sign-on failed; try again';
    location = `/sign-in?sso_error=${encodeURIComponent(message)}`;
  }
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect(location);
}
