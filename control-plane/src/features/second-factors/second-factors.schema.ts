// Inputs and answers of the second-factor routes. WebAuthn responses are checked for their
// shape here and verified by @simplewebauthn/server; their meaning is the library's to judge.
import { z } from 'zod';

/** Six digits; spaces (as apps show "123 456") are dropped. */
const totpCode = z
  .string({ message: 'code must be a string' })
  .transform((v) => v.replace(/\s/g, ''))
  .pipe(z.string().regex(/^\d{6}$/, 'code must be the 6 digits the authenticator app shows'));
const recoveryCode = z.string({ message: 'recovery_code must be a string' }).trim().min(1, 'recovery_code must not be empty').max(64);
const password = z.string({ message: 'password must be a string' }).min(1, 'password must not be empty').max(256);
const mfaToken = z.string({ message: 'mfa_token must be a string' }).min(1, 'mfa_token must not be empty').max(200);
const passkeyName = z.string({ message: 'name must be a string' }).trim().min(1, 'name must not be empty').max(100, 'name must be at most 100 characters');

const base64url = (field: string) =>
  z.string({ message: `${field} must be a string` }).max(16_384).regex(/^[A-Za-z0-9_-]*$/, `${field} must be base64url`);

/** What navigator.credentials.get() answers, as JSON (startAuthentication of @simplewebauthn/browser). */
export const PasskeyAssertion = z
  .looseObject({
    id: base64url('passkey.id'),
    rawId: base64url('passkey.rawId'),
    type: z.literal('public-key', { message: 'passkey.type must be "public-key"' }),
    response: z.looseObject({
      clientDataJSON: base64url('passkey.response.clientDataJSON'),
      authenticatorData: base64url('passkey.response.authenticatorData'),
      signature: base64url('passkey.response.signature'),
      userHandle: base64url('passkey.response.userHandle').optional(),
    }),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
    authenticatorAttachment: z.string().optional(),
  })
  .meta({ id: 'PasskeyAssertion', description: 'An AuthenticationResponseJSON (WebAuthn assertion) as startAuthentication() answers it.' });
export type PasskeyAssertion = z.infer<typeof PasskeyAssertion>;

/** What navigator.credentials.create() answers, as JSON (startRegistration of @simplewebauthn/browser). */
export const PasskeyAttestation = z
  .looseObject({
    id: base64url('response.id'),
    rawId: base64url('response.rawId'),
    type: z.literal('public-key', { message: 'response.type must be "public-key"' }),
    response: z.looseObject({
      clientDataJSON: base64url('response.response.clientDataJSON'),
      attestationObject: base64url('response.response.attestationObject'),
      transports: z.array(z.string().max(32)).max(10).optional(),
    }),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
    authenticatorAttachment: z.string().optional(),
  })
  .meta({ id: 'PasskeyAttestation', description: 'A RegistrationResponseJSON as startRegistration() answers it.' });
export type PasskeyAttestation = z.infer<typeof PasskeyAttestation>;

/** Proof that it is really the user, for removing a factor or new recovery codes: one of these. */
export const FactorProof = z
  .strictObject({
    password: password.optional(),
    code: totpCode.optional(),
    passkey: PasskeyAssertion.optional(),
  })
  .refine((p) => [p.password, p.code, p.passkey].filter((v) => v !== undefined).length === 1, {
    message: 'give exactly one of password, code (from the authenticator app) or passkey',
  })
  .meta({ id: 'FactorProof' });
export type FactorProof = z.infer<typeof FactorProof>;

export const ConfirmTotpInput = z.strictObject({ code: totpCode });
export const RegisterPasskeyInput = z.strictObject({ name: passkeyName, response: PasskeyAttestation });
export const RenamePasskeyInput = z.strictObject({ name: passkeyName });

/** The second step of a login: the token of the first and one factor. */
export const CompleteMfaInput = z
  .strictObject({ mfa_token: mfaToken, code: totpCode.optional(), recovery_code: recoveryCode.optional(), passkey: PasskeyAssertion.optional() })
  .refine((p) => [p.code, p.recovery_code, p.passkey].filter((v) => v !== undefined).length === 1, {
    message: 'give exactly one of code, recovery_code or passkey',
  });
export type CompleteMfaInput = z.infer<typeof CompleteMfaInput>;
export const MfaTokenInput = z.strictObject({ mfa_token: mfaToken });
export const EnrolConfirmInput = z.strictObject({ mfa_token: mfaToken, code: totpCode });
export const PasskeySignInInput = z.strictObject({ passkey: PasskeyAssertion });
export const OrganizationSecurityInput = z.strictObject({ require_mfa: z.boolean({ message: 'require_mfa must be true or false' }) });

export const MfaMethod = z.enum(['totp', 'recovery_code', 'passkey']);
export type MfaMethod = z.infer<typeof MfaMethod>;

export const MfaRequiredJson = z
  .object({
    mfa_required: z.literal(true),
    mfa_token: z.string().meta({ description: 'For POST /auth/login/mfa: single use, valid 5 minutes, a few attempts' }),
    methods: z.array(MfaMethod).meta({ description: 'The factors the user has; empty when mfa_enrollment_required' }),
    mfa_enrollment_required: z.boolean().optional().meta({ description: 'The organization requires a second factor and the user has none: enrol TOTP with the token first' }),
  })
  .meta({ id: 'MfaRequired' });

export const TotpSetupJson = z
  .object({
    secret: z.string().meta({ description: 'base32; shown only now' }),
    otpauth_uri: z.string(),
    qr_code: z.string().meta({ description: 'The otpauth URI as an SVG image, a data: URL' }),
  })
  .meta({ id: 'TotpSetup' });
export const RecoveryCodesJson = z
  .object({ recovery_codes: z.array(z.string()).meta({ description: 'Ten codes, each good once; shown only now' }) })
  .meta({ id: 'RecoveryCodes' });
export const PasskeyJson = z
  .object({ id: z.uuid(), name: z.string(), created_at: z.iso.datetime(), last_used_at: z.iso.datetime().nullable(), backed_up: z.boolean() })
  .meta({ id: 'Passkey' });
export const SecondFactorsJson = z
  .object({
    totp: z.object({ enabled: z.boolean() }),
    recovery_codes_left: z.number().int(),
    passkeys: z.array(PasskeyJson),
  })
  .meta({ id: 'SecondFactors' });
/** WebAuthn options for navigator.credentials.create()/get(), as @simplewebauthn/browser takes them. */
export const WebAuthnOptionsJson = z.record(z.string(), z.unknown()).meta({ id: 'WebAuthnOptions' });
export const OrganizationSecurityJson = z.object({ require_mfa: z.boolean() }).meta({ id: 'OrganizationSecurity' });

// The answers' types, for the dashboard.
export type MfaRequiredJson = z.infer<typeof MfaRequiredJson>;
export type TotpSetupJson = z.infer<typeof TotpSetupJson>;
export type RecoveryCodesJson = z.infer<typeof RecoveryCodesJson>;
export type PasskeyJson = z.infer<typeof PasskeyJson>;
export type SecondFactorsJson = z.infer<typeof SecondFactorsJson>;
export type OrganizationSecurityJson = z.infer<typeof OrganizationSecurityJson>;
