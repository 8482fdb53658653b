// The signed-in user's second factors, under /profile/mfa.
import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import { idParam, type ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import type { Passkey } from './factors.repository.js';
import type { RelyingParty } from './relying-party.js';
import {
  ConfirmTotpInput,
  FactorProof,
  PasskeyJson,
  RecoveryCodesJson,
  RegisterPasskeyInput,
  RenamePasskeyInput,
  SecondFactorsJson,
  TotpSetupJson,
  WebAuthnOptionsJson,
} from './second-factors.schema.js';
import type { SecondFactorsService } from './second-factors.service.js';
import type { TotpSetup } from './totp-factor.js';

/** The relying party of a request (PUBLIC_URL, or the origin the browser called from). */
export type RelyingPartyOf = (ctx: Pick<Context, 'get' | 'host' | 'state' | 'protocol'>) => RelyingParty;

const PasskeyId = idParam('passkey');
const tag = 'Second factors';
const proofNote = 'Needs proof it is you: `password`, a `code` of the authenticator app, or a `passkey` assertion (options from POST /profile/mfa/proof-options).';

export const toPasskeyJson = (p: Passkey) => ({
  id: p.id,
  name: p.name,
  created_at: p.createdAt.toISOString(),
  last_used_at: p.lastUsedAt?.toISOString() ?? null,
  backed_up: p.backedUp,
});
export const toTotpSetupJson = (s: TotpSetup) => ({ secret: s.secret, otpauth_uri: s.uri, qr_code: s.qrCode });

export const secondFactorsOperations: ApiOperation[] = [
  { method: 'get', path: '/profile/mfa', tag, summary: 'Your second factors: TOTP, recovery codes left, passkeys', responses: { 200: SecondFactorsJson } },
  {
    method: 'post', path: '/profile/mfa/totp', tag, summary: 'Start TOTP set-up: the secret, its otpauth URI and QR code, shown once',
    description: 'Replaces a set-up not yet confirmed; 409 while TOTP is enabled.', responses: { 200: TotpSetupJson }, errors: [409],
  },
  {
    method: 'post', path: '/profile/mfa/totp/confirm', tag, summary: 'Enable TOTP with a first code: ten recovery codes, shown once',
    body: ConfirmTotpInput, responses: { 200: RecoveryCodesJson }, errors: [409],
  },
  { method: 'post', path: '/profile/mfa/totp/disable', tag, summary: 'Disable TOTP (and its recovery codes)', description: proofNote, body: FactorProof, responses: { 204: null }, errors: [404] },
  {
    method: 'post', path: '/profile/mfa/recovery-codes', tag, summary: 'Replace the recovery codes with ten new ones, shown once',
    description: proofNote, body: FactorProof, responses: { 200: RecoveryCodesJson }, errors: [409],
  },
  {
    method: 'post', path: '/profile/mfa/proof-options', tag, summary: 'WebAuthn options for a passkey given as proof',
    responses: { 200: WebAuthnOptionsJson }, errors: [409],
  },
  { method: 'get', path: '/profile/mfa/passkeys', tag, summary: 'List your passkeys', responses: { 200: z.array(PasskeyJson) } },
  {
    method: 'post', path: '/profile/mfa/passkeys/options', tag, summary: 'WebAuthn options for registering a passkey',
    description: 'The challenge lives two and a half minutes and works once.', responses: { 200: WebAuthnOptionsJson },
  },
  {
    method: 'post', path: '/profile/mfa/passkeys', tag, summary: 'Register a passkey: the named answer of navigator.credentials.create()',
    body: RegisterPasskeyInput, responses: { 201: PasskeyJson }, errors: [409],
  },
  { method: 'put', path: '/profile/mfa/passkeys/:id', tag, summary: 'Rename a passkey', params: { id: PasskeyId }, body: RenamePasskeyInput, responses: { 200: PasskeyJson } },
  {
    method: 'post', path: '/profile/mfa/passkeys/:id/remove', tag, summary: 'Remove a passkey',
    description: proofNote, params: { id: PasskeyId }, body: FactorProof, responses: { 204: null },
  },
];

export function secondFactorsRoutes(factors: SecondFactorsService, relyingPartyOf: RelyingPartyOf): Router {
  const router = new Router({ prefix: '/profile/mfa' });
  router.get('/', async (ctx) => {
    const o = await factors.overview(actorOf(ctx));
    ctx.body = { totp: { enabled: o.totp }, recovery_codes_left: o.recoveryCodesLeft, passkeys: o.passkeyList.map(toPasskeyJson) };
  });
  router.post('/totp', async (ctx) => {
    ctx.body = toTotpSetupJson(await factors.startTotp(actorOf(ctx), ctx.ip));
  });
  router.post('/totp/confirm', async (ctx) => {
    const { code } = parseInput(ConfirmTotpInput, ctx.request.body);
    ctx.body = { recovery_codes: await factors.confirmTotp(actorOf(ctx), code, ctx.ip) };
  });
  router.post('/totp/disable', async (ctx) => {
    await factors.disableTotp(actorOf(ctx), parseInput(FactorProof, ctx.request.body), ctx.ip);
    ctx.status = 204;
  });
  router.post('/recovery-codes', async (ctx) => {
    ctx.body = { recovery_codes: await factors.regenerateRecoveryCodes(actorOf(ctx), parseInput(FactorProof, ctx.request.body), ctx.ip) };
  });
  router.post('/proof-options', async (ctx) => {
    ctx.body = await factors.proofOptions(actorOf(ctx), relyingPartyOf(ctx));
  });
  router.get('/passkeys', async (ctx) => {
    ctx.body = (await factors.overview(actorOf(ctx))).passkeyList.map(toPasskeyJson);
  });
  router.post('/passkeys/options', async (ctx) => {
    ctx.body = await factors.passkeyOptions(actorOf(ctx), relyingPartyOf(ctx));
  });
  router.post('/passkeys', async (ctx) => {
    const input = parseInput(RegisterPasskeyInput, ctx.request.body);
    ctx.status = 201;
    ctx.body = toPasskeyJson(await factors.addPasskey(actorOf(ctx), input.name, input.response, ctx.ip));
  });
  router.put('/passkeys/:id', async (ctx) => {
    const id = parseInput(PasskeyId, ctx.params.id, 'passkey id');
    ctx.body = toPasskeyJson(await factors.renamePasskey(actorOf(ctx), id, parseInput(RenamePasskeyInput, ctx.request.body).name));
  });
  router.post('/passkeys/:id/remove', async (ctx) => {
    const id = parseInput(PasskeyId, ctx.params.id, 'passkey id');
    await factors.removePasskey(actorOf(ctx), id, parseInput(FactorProof, ctx.request.body), ctx.ip);
    ctx.status = 204;
  });
  return router;
}
