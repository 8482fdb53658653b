// The public routes of a sign-in with a second factor, and of a sign-in with a passkey alone.
import Router from '@koa/router';
import { z } from 'zod';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import { SessionJson, sessionAnswer, signInContext } from '../sessions/sessions.routes.js';
import type { MfaChallenge, MfaSignIn } from './mfa-sign-in.js';
import { toTotpSetupJson, type RelyingPartyOf } from './second-factors.routes.js';
import {
  CompleteMfaInput,
  EnrolConfirmInput,
  MfaRequiredJson,
  MfaTokenInput,
  PasskeySignInInput,
  RecoveryCodesJson,
  TotpSetupJson,
  WebAuthnOptionsJson,
} from './second-factors.schema.js';

/** The answer of POST /auth/login when a second factor is needed. */
export const mfaRequiredAnswer = (c: MfaChallenge): z.infer<typeof MfaRequiredJson> => ({
  mfa_required: true,
  mfa_token: c.mfaToken,
  methods: c.methods,
  ...(c.enrollmentRequired && { mfa_enrollment_required: true }),
});

const tag = 'Auth';
export const mfaSignInOperations: ApiOperation[] = [
  {
    method: 'post', path: '/auth/login/mfa', tag, summary: 'Complete a login with its second factor', public: true,
    description:
      'The mfa_token of POST /auth/login and exactly one of `code` (TOTP), `recovery_code` or `passkey` (an assertion signed with options from /auth/login/mfa/passkey-options). ' +
      'A wrong factor is a 401; the token takes five and lives five minutes; repeated failures are a 429.',
    body: CompleteMfaInput, responses: { 200: SessionJson }, errors: [401, 403, 429],
  },
  {
    method: 'post', path: '/auth/login/mfa/passkey-options', tag, summary: 'WebAuthn options for a passkey as the second factor', public: true,
    body: MfaTokenInput, responses: { 200: WebAuthnOptionsJson }, errors: [401, 409, 429],
  },
  {
    method: 'post', path: '/auth/login/mfa/totp', tag, summary: 'Set up TOTP during a login the organization requires it for', public: true,
    description: 'Only with an mfa_token answered with mfa_enrollment_required.', body: MfaTokenInput, responses: { 200: TotpSetupJson }, errors: [401, 403, 429],
  },
  {
    method: 'post', path: '/auth/login/mfa/totp/confirm', tag, summary: 'Enable that TOTP with a first code and complete the login', public: true,
    description: 'Answers the session and the ten recovery codes, shown once.',
    body: EnrolConfirmInput, responses: { 200: SessionJson.extend(RecoveryCodesJson.shape) }, errors: [401, 403, 409, 429],
  },
  {
    method: 'post', path: '/auth/passkey/options', tag, summary: 'WebAuthn options for signing in with a passkey alone', public: true,
    description: 'Any passkey of this site that the browser holds may answer; the challenge lives two and a half minutes and works once.',
    responses: { 200: WebAuthnOptionsJson }, errors: [429],
  },
  {
    method: 'post', path: '/auth/passkey/verify', tag, summary: 'Sign in with a passkey', public: true,
    body: PasskeySignInInput, responses: { 200: SessionJson }, errors: [401, 403, 429],
  },
];

export function mfaSignInRoutes(signIn: MfaSignIn, relyingPartyOf: RelyingPartyOf): Router {
  const router = new Router({ prefix: '/auth' });
  router.post('/login/mfa', async (ctx) => {
    ctx.body = sessionAnswer(await signIn.complete(parseInput(CompleteMfaInput, ctx.request.body), signInContext(ctx)));
  });
  router.post('/login/mfa/passkey-options', async (ctx) => {
    ctx.body = await signIn.passkeyOptions(parseInput(MfaTokenInput, ctx.request.body).mfa_token, relyingPartyOf(ctx), ctx.ip);
  });
  router.post('/login/mfa/totp', async (ctx) => {
    ctx.body = toTotpSetupJson(await signIn.startEnrolment(parseInput(MfaTokenInput, ctx.request.body).mfa_token, ctx.ip));
  });
  router.post('/login/mfa/totp/confirm', async (ctx) => {
    const input = parseInput(EnrolConfirmInput, ctx.request.body);
    const { session, recoveryCodes } = await signIn.confirmEnrolment(input.mfa_token, input.code, signInContext(ctx));
    ctx.body = { ...sessionAnswer(session), recovery_codes: recoveryCodes };
  });
  router.post('/passkey/options', async (ctx) => {
    ctx.body = await signIn.passkeySignInOptions(relyingPartyOf(ctx), ctx.ip);
  });
  router.post('/passkey/verify', async (ctx) => {
    ctx.body = sessionAnswer(await signIn.passkeySignIn(parseInput(PasskeySignInInput, ctx.request.body).passkey, signInContext(ctx)));
  });
  return router;
}
