import Router from '@koa/router';
import { parseInput } from '../../http/validate.js';
import { LoginInput, RegisterInput } from './auth.schema.js';
import type { AuthService } from './auth.service.js';

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
