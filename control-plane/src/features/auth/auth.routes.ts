import Router from '@koa/router';
import { parseInput } from '../../http/validate.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { LoginInput, RegisteredJson, RegisterInput, SessionJson } from './auth.schema.js';
import type { AuthService } from './auth.service.js';

export const authOperations: ApiOperation[] = [
  {
    method: 'post', path: '/auth/register', tag: 'Auth', summary: 'Register a user with a new organization on the free plan', public: true,
    body: RegisterInput, responses: { 201: RegisteredJson }, errors: [409, 429],
  },
  {
    method: 'post', path: '/auth/login', tag: 'Auth', summary: 'Log in for a token', public: true,
    description: 'An unknown e-mail and a wrong password get the same 401; repeated failures a 429.',
    body: LoginInput, responses: { 200: SessionJson }, errors: [401, 429],
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
    const session = await auth.login(input, ctx.ip);
    ctx.body = { token: session.token, user_id: session.userId, org_id: session.organizationId };
  });

  return router;
}
