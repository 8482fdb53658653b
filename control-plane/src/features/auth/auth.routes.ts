import Router from '@koa/router';
import { z } from 'zod';
import { parseInput } from '../../http/validate.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { SessionJson, sessionAnswer, signInContext } from '../sessions/sessions.routes.js';
import { LoginInput, RegisteredJson, RegisterInput } from './auth.schema.js';
import { mfaRequiredAnswer } from '../second-factors/mfa-sign-in.routes.js';
import { MfaRequiredJson } from '../second-factors/second-factors.schema.js';
import type { AuthService } from './auth.service.js';

export const authOperations: ApiOperation[] = [
  {
    method: 'post', path: '/auth/register', tag: 'Auth', summary: 'Register a user with a new organization on the free plan', public: true,
    body: RegisterInput, responses: { 201: RegisteredJson }, errors: [409, 429],
  },
  {
    method: 'post', path: '/auth/login', tag: 'Auth', summary: 'Log in for a token', public: true,
    description: 'An unknown e-mail and a wrong password get the same 401; repeated failures a 429. A user with a second factor (or without one in an organization that requires it) gets mfa_required and an mfa_token for POST /auth/login/mfa instead. An organization that requires single sign-on answers 403 SSO_REQUIRED (its owners excepted).',
    body: LoginInput, responses: { 200: z.union([SessionJson, MfaRequiredJson]) }, errors: [401, 403, 429],
  },
];

export function authRoutes(auth: AuthService): Router {
  const router = new Router({ prefix: '/auth' });

  router.post('/register', async (ctx) => {
    const input = parseInput(RegisterInput, ctx.request.body);
    const { userId, organizationId } = await auth.register(input, ctx.ip);
    ctx.status = 201;
    ctx.body = { message: 'user registered', user_id: userId, org_id: organizationId };
  });

  router.post('/login', async (ctx) => {
    const input = parseInput(LoginInput, ctx.request.body);
    const signedIn = await auth.login(input, signInContext(ctx));
    ctx.body = 'mfaToken' in signedIn ? mfaRequiredAnswer(signedIn) : sessionAnswer(signedIn);
  });

  return router;
}
