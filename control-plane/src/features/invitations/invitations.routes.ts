// Admins: POST, GET and DELETE /invitations. The invited person, without credentials: the
// link's preview and accepting it, which answers a session as a login does.
import Router from '@koa/router';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import { mfaRequiredAnswer } from '../second-factors/mfa-sign-in.routes.js';
import { MfaRequiredJson } from '../second-factors/second-factors.schema.js';
import { SessionJson, sessionAnswer, signInContext } from '../sessions/sessions.routes.js';
import type { InvitationAcceptance, InvitationPreview } from './invitation-acceptance.js';
import {
  AcceptInvitationInput, CreatedInvitationJson, CreateInvitationInput, InvitationIdParam, InvitationJson, InvitationPreviewJson, PreviewQuery, toInvitationJson,
} from './invitations.schema.js';
import type { InvitationsService } from './invitations.service.js';

const tag = 'Invitations';

export const invitationsOperations: ApiOperation[] = [
  {
    method: 'post', path: '/invitations', tag, summary: 'Invite someone by e-mail to join with a role (admins)',
    description:
      'Mails a link to /accept-invitation, valid 7 days and once, and replaces an open invitation of the same address. A role above your own is a 403, a current member a 409. ' +
      'When the mail cannot be sent (no SMTP settings, a refused message) the invitation still stands: `email_sent` is false and `accept_url` is the link to pass on.',
    body: CreateInvitationInput, responses: { 201: CreatedInvitationJson }, errors: [409],
  },
  { method: 'get', path: '/invitations', tag, summary: 'List invitations, newest first: pending, accepted, revoked and expired (admins)', responses: { 200: z.array(InvitationJson) } },
  {
    method: 'delete', path: '/invitations/:id', tag, summary: 'Revoke an invitation (admins)',
    description: 'Its link stops working at once. An accepted invitation is a 409: remove the member instead.',
    params: { id: InvitationIdParam }, responses: { 204: null }, errors: [409],
  },
  {
    method: 'get', path: '/invitations/preview', tag, summary: "What an invitation link offers: the organization, the address, the role, and whether that address has an account", public: true,
    description: 'An unknown, used, revoked or expired link is the same 404.',
    query: PreviewQuery, responses: { 200: InvitationPreviewJson }, errors: [404],
  },
  {
    method: 'post', path: '/auth/invitations/accept', tag, summary: 'Accept an invitation and sign in, in the inviting organization', public: true,
    description:
      'Without an account for the invited address this registers one (`full_name` and a password of at least 8 characters); with one, `password` is that account\'s (a wrong one is a 401, and counts as a failed login). ' +
      'Answers a session as a login does, or, for a person with a second factor or an organization that requires one, `mfa_required` with an `mfa_token` for POST /auth/login/mfa. ' +
      'An organization that requires single sign-on answers 403 `SSO_REQUIRED`: its people sign in through its provider. The link works once; an unknown, used, revoked or expired one is a 404.',
    body: AcceptInvitationInput, responses: { 200: z.union([SessionJson, MfaRequiredJson]) }, errors: [401, 403, 404, 409, 429],
  },
];

const toPreviewJson = (p: InvitationPreview) => ({
  organization_name: p.organizationName, email: p.email, role: p.role, account_exists: p.accountExists, expires_at: p.expiresAt.toISOString(),
});

export function invitationsRoutes(invitations: InvitationsService): Router {
  const router = new Router({ prefix: '/invitations' });
  router.get('/', async (ctx) => {
    ctx.body = (await invitations.list(actorOf(ctx))).map(toInvitationJson);
  });
  router.post('/', async (ctx) => {
    const created = await invitations.create(actorOf(ctx), parseInput(CreateInvitationInput, ctx.request.body));
    ctx.status = 201;
    ctx.body = { ...toInvitationJson(created.invitation), ...(created.acceptUrl && { accept_url: created.acceptUrl, email_error: created.emailError }) };
  });
  router.delete('/:id', async (ctx) => {
    await invitations.revoke(actorOf(ctx), parseInput(InvitationIdParam, ctx.params.id, 'invitation id'));
    ctx.status = 204;
  });
  return router;
}

export function publicInvitationRoutes(acceptance: InvitationAcceptance): Router {
  const router = new Router();
  router.get('/invitations/preview', async (ctx) => {
    // The link's token is the credential: answers are never kept by a cache.
    ctx.set('Cache-Control', 'no-store');
    ctx.body = toPreviewJson(await acceptance.preview(parseInput(PreviewQuery, ctx.query, 'query').token));
  });
  router.post('/auth/invitations/accept', async (ctx) => {
    const input = parseInput(AcceptInvitationInput, ctx.request.body);
    const signedIn = await acceptance.accept(input, signInContext(ctx));
    ctx.body = 'mfaToken' in signedIn ? mfaRequiredAnswer(signedIn) : sessionAnswer(signedIn);
  });
  return router;
}
