import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import { idParam, type ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import { deviceName } from './device-name.js';
import type { StoredSession } from './sessions.repository.js';
import { SessionJson, sessionAnswer } from './sessions.schema.js';
import type { SessionsService, SignInContext } from './sessions.service.js';

export { SessionJson, sessionAnswer };
import { SIGN_IN_METHODS } from './sign-in-method.js';

/** Where a sign-in comes from, for its session's record. */
export function signInContext(ctx: Pick<Context, 'ip' | 'get'>): SignInContext {
  return { address: ctx.ip, userAgent: ctx.get('user-agent') || undefined };
}

const RefreshInput = z.strictObject({
  refresh_token: z.string({ message: 'refresh_token must be a string' }).min(1, 'refresh_token must not be empty').max(200),
  org_id: z.uuid({ message: 'org_id must be a UUID' }).optional(),
});
const EndAllQuery = z.object({ keep_current: z.enum(['true', 'false'], { message: 'keep_current must be true or false' }).optional() });
const SessionId = idParam('session');

const SignInSessionJson = z
  .object({
    id: z.uuid(),
    method: z.enum(SIGN_IN_METHODS),
    device: z.string().meta({ description: 'A short name from the User-Agent, such as "Firefox on Linux"' }),
    user_agent: z.string().nullable(),
    address: z.string().nullable(),
    created_at: z.iso.datetime(),
    last_seen_at: z.iso.datetime().meta({ description: 'Updated at most once a minute' }),
    expires_at: z.iso.datetime(),
    current: z.boolean().meta({ description: 'The session of the token asking' }),
  })
  .meta({ id: 'SignInSession' });

const toJson = (s: StoredSession & { current: boolean }) => ({
  id: s.id,
  method: s.method,
  device: deviceName(s.userAgent),
  user_agent: s.userAgent,
  address: s.address,
  created_at: s.createdAt.toISOString(),
  last_seen_at: s.lastSeenAt.toISOString(),
  expires_at: s.expiresAt.toISOString(),
  current: s.current,
});

const tag = 'Sessions';
export const sessionsOperations: ApiOperation[] = [
  {
    method: 'post', path: '/auth/refresh', tag: 'Auth', summary: 'Exchange a refresh token for a new token and refresh token', public: true,
    description: 'Each refresh token is used once; using one a second time ends its session. `org_id` moves the session to another organization of the user.',
    body: RefreshInput, responses: { 200: SessionJson }, errors: [401, 403],
  },
  { method: 'get', path: '/sessions', tag, summary: 'List your live sessions', responses: { 200: z.array(SignInSessionJson) } },
  {
    method: 'delete', path: '/sessions', tag, summary: 'Sign out everywhere',
    description: 'Ends every session of yours (and every older token), on every replica, before answering; `keep_current=true` keeps the one asking.',
    query: EndAllQuery, responses: { 200: z.object({ ended: z.number().int() }) },
  },
  { method: 'delete', path: '/sessions/current', tag, summary: 'Sign out: end the session of this token', responses: { 204: null } },
  { method: 'delete', path: '/sessions/:id', tag, summary: 'End one of your sessions', params: { id: SessionId }, responses: { 204: null } },
];

export function refreshRoutes(sessions: SessionsService): Router {
  const router = new Router();
  router.post('/auth/refresh', async (ctx) => {
    const input = parseInput(RefreshInput, ctx.request.body);
    ctx.body = sessionAnswer(await sessions.refresh(input.refresh_token, input.org_id, ctx.ip));
  });
  return router;
}

export function sessionsRoutes(sessions: SessionsService): Router {
  const router = new Router({ prefix: '/sessions' });
  router.get('/', async (ctx) => {
    ctx.body = (await sessions.list(actorOf(ctx))).map(toJson);
  });
  router.delete('/', async (ctx) => {
    const query = parseInput(EndAllQuery, ctx.query, 'query');
    ctx.body = { ended: await sessions.endAllOwn(actorOf(ctx), query.keep_current === 'true') };
  });
  router.delete('/current', async (ctx) => {
    const actor = actorOf(ctx);
    if (actor.sessionId) await sessions.endOwn(actor, actor.sessionId);
    else await sessions.endAllOwn(actor, false);
    ctx.status = 204;
  });
  router.delete('/:id', async (ctx) => {
    await sessions.endOwn(actorOf(ctx), parseInput(SessionId, ctx.params.id, 'session id'));
    ctx.status = 204;
  });
  return router;
}
