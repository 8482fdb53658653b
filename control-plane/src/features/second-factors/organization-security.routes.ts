// GET/PUT /organization/security: the organization's sign-in rules (admins).
import Router from '@koa/router';
import { actorOf } from '../../http/authenticate.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import type { OrganizationSecurity, OrganizationSecurityService } from './organization-security.service.js';
import { OrganizationSecurityInput, OrganizationSecurityJson } from './second-factors.schema.js';

const toJson = (s: OrganizationSecurity) => ({ require_mfa: s.requireMfa });

export const organizationSecurityOperations: ApiOperation[] = [
  { method: 'get', path: '/organization/security', tag: 'Organization', summary: "The organization's sign-in rules (admin)", responses: { 200: OrganizationSecurityJson } },
  {
    method: 'put', path: '/organization/security', tag: 'Organization', summary: 'Require a second factor of every member (admin)',
    description: 'Checked at sign-in: a member without a factor who signs in with a password must set up TOTP before the session starts. SSO sign-ins count as the identity provider\'s second factor.',
    body: OrganizationSecurityInput, responses: { 200: OrganizationSecurityJson },
  },
];

export function organizationSecurityRoutes(security: OrganizationSecurityService): Router {
  const router = new Router({ prefix: '/organization/security' });
  router.get('/', async (ctx) => {
    ctx.body = toJson(await security.get(actorOf(ctx)));
  });
  router.put('/', async (ctx) => {
    ctx.body = toJson(await security.update(actorOf(ctx), parseInput(OrganizationSecurityInput, ctx.request.body), ctx.ip));
  });
  return router;
}
