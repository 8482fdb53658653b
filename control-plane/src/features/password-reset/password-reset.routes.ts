// Public: POST /auth/password-reset asks for a link by mail; POST /auth/password-reset/complete
// uses it.
import Router from '@koa/router';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import { CompletePasswordResetInput, PasswordResetAnswer, PasswordResetInput } from './password-reset.schema.js';
import type { PasswordResetService } from './password-reset.service.js';

const tag = 'Auth';

export const passwordResetOperations: ApiOperation[] = [
  {
    method: 'post', path: '/auth/password-reset', tag, summary: 'Ask for a password reset link by e-mail', public: true,
    description:
      'Answers the same 202 whether or not an account has the address; only an account gets a mail, with a link to /reset-password valid one hour and once. ' +
      'Limited per client address and per e-mail address (429). A server without SMTP settings answers 400.',
    body: PasswordResetInput, responses: { 202: PasswordResetAnswer }, errors: [429],
  },
  {
    method: 'post', path: '/auth/password-reset/complete', tag, summary: 'Set a new password with the link of a reset mail', public: true,
    description: 'Uses up the link and every other reset link of the user, and ends every session of the user. An unknown, used or expired link is a 404.',
    body: CompletePasswordResetInput, responses: { 204: null }, errors: [404],
  },
];

export function passwordResetRoutes(resets: PasswordResetService): Router {
  const router = new Router({ prefix: '/auth/password-reset' });
  router.post('/', async (ctx) => {
    const { email } = parseInput(PasswordResetInput, ctx.request.body);
    const message = await resets.request(email, ctx.ip);
    ctx.status = 202;
    ctx.body = { message };
  });
  router.post('/complete', async (ctx) => {
    await resets.complete(parseInput(CompletePasswordResetInput, ctx.request.body), ctx.ip);
    ctx.status = 204;
  });
  return router;
}
