import { z } from 'zod';
import type { SsoSettingsView } from './sso-settings.service.js';
import { readOnly } from '../../http/validate.js';
import { issuerProblem, normalizeIssuer } from './issuer-url.js';

/** Roles a provider's groups may grant: never owner. */
export const MAPPED_ROLES = ['admin', 'member', 'viewer'] as const;
const mappedRole = (field: string) => z.enum(MAPPED_ROLES, { message: `${field} must be admin, member or viewer (owner is never granted by single sign-on)` });

const issuer = z
  .string({ message: 'issuer must be a string' })
  .max(2000, 'issuer must be at most 2000 characters')
  .transform(normalizeIssuer)
  .superRefine((value, ctx) => {
    const problem = issuerProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
const clientId = z.string({ message: 'client_id must be a string' }).trim().min(1, 'client_id must not be empty').max(500);
const clientSecret = z.string({ message: 'client_secret must be a string' }).min(1, 'client_secret must not be empty').max(2000);

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const domain = z
  .string({ message: 'each allowed domain must be a string' })
  .trim()
  .toLowerCase()
  .transform((d) => d.replace(/^@/, ''))
  .refine((d) => DOMAIN.test(d), 'each allowed domain must be a domain name such as example.com');

export const SsoSettingsInput = z.strictObject({
  ...readOnly('organization_id', 'client_secret_set', 'callback_url', 'start_url', 'created_at', 'updated_at'),
  issuer,
  client_id: clientId,
  client_secret: clientSecret.optional().meta({ description: 'Write-only; required the first time, kept when left out later' }),
  allowed_domains: z
    .array(domain, { message: 'allowed_domains must be a list of domains' })
    .min(1, 'allowed_domains must name at least one e-mail domain')
    .max(50)
    .transform((list) => [...new Set(list)]),
  groups_claim: z.string({ message: 'groups_claim must be a string' }).trim().min(1, 'groups_claim must not be empty').max(200).default('groups'),
  role_mapping: z
    .array(z.strictObject({ group: z.string({ message: 'group must be a string' }).trim().min(1, 'group must not be empty').max(500), role: mappedRole('role') }), {
      message: 'role_mapping must be a list of {group, role}',
    })
    .max(200)
    .default([]),
  default_role: mappedRole('default_role').nullable().default(null).meta({ description: 'The role of people in no mapped group; null: they are not let in' }),
  required: z.boolean({ message: 'required must be true or false' }).default(false).meta({ description: 'Members may not sign in with a password (the owner keeps a break-glass password, audited)' }),
  enabled: z.boolean({ message: 'enabled must be true or false' }).default(true),
});
export type SsoSettingsInput = z.infer<typeof SsoSettingsInput>;

export const SsoSettingsJson = z
  .object({
    organization_id: z.uuid(),
    issuer: z.string(),
    client_id: z.string(),
    client_secret_set: z.literal(true),
    allowed_domains: z.array(z.string()),
    groups_claim: z.string(),
    role_mapping: z.array(z.object({ group: z.string(), role: z.enum(MAPPED_ROLES) })),
    default_role: z.enum(MAPPED_ROLES).nullable(),
    required: z.boolean(),
    enabled: z.boolean(),
    callback_url: z.string().meta({ description: 'The redirect URI to register at the provider (from PUBLIC_URL)' }),
    start_url: z.string().meta({ description: 'Where a browser starts signing in' }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'SsoSettings' });

/** Values to try before saving them; what is left out comes from the saved settings. */
export const SsoTestInput = z.strictObject({
  issuer: issuer.optional(),
  client_id: clientId.optional(),
  client_secret: clientSecret.optional(),
});
export type SsoTestInput = z.infer<typeof SsoTestInput>;

export const SsoTestJson = z
  .object({
    ok: z.boolean(),
    message: z.string(),
    issuer: z.string().optional(),
    authorization_endpoint: z.string().optional(),
    token_endpoint: z.string().optional(),
    userinfo_endpoint: z.string().optional(),
    jwks_uri: z.string().optional(),
    scopes_supported: z.array(z.string()).optional(),
    credentials: z.enum(['valid', 'invalid', 'unchecked']).meta({ description: 'Whether the token endpoint accepted the client id and secret' }),
  })
  .meta({ id: 'SsoTestResult' });

export const SlugParam = z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'organization slug is lower-case letters, digits and dashes');

/** A dashboard path to land on: local only, so the sign-in cannot send anyone elsewhere. */
const localPath = z
  .string({ message: 'redirect must be a string' })
  .max(1000)
  .regex(/^\/(?![/\\])[^\s]*$/, 'redirect must be a path of this site, such as /services');

export const SsoStartQuery = z.object({ redirect: localPath.optional() });

export const SsoCallbackQuery = z.object({
  state: z.string().max(1000).optional(),
  code: z.string().max(4000).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(1000).optional(),
  iss: z.string().max(2000).optional(),
});

export const SsoDiscoverQuery = z
  .object({
    email: z.string().trim().toLowerCase().max(254).pipe(z.email({ message: 'email must be an e-mail address' })).optional(),
    organization: SlugParam.optional(),
  })
  .refine((q) => (q.email === undefined) !== (q.organization === undefined), { message: 'give either email or organization', path: ['email'] });

export const SsoDiscoveryJson = z.object({
  organization: z.string().meta({ description: 'The slug of the organization' }),
  start_url: z.string().meta({ description: 'Open it in the browser to sign in' }),
});

export const SsoExchangeInput = z.strictObject({
  code: z.string({ message: 'code must be a string' }).min(1, 'code must not be empty').max(200),
});

/** The settings as the API answers them: the client secret never, only that it is set. */
export const toSsoSettingsJson = ({ settings: s, callbackUrl, startUrl }: SsoSettingsView) => ({
  organization_id: s.organizationId,
  issuer: s.issuer,
  client_id: s.clientId,
  client_secret_set: true as const,
  allowed_domains: s.allowedDomains,
  groups_claim: s.groupsClaim,
  role_mapping: s.roleMapping,
  default_role: s.defaultRole,
  required: s.required,
  enabled: s.enabled,
  callback_url: callbackUrl,
  start_url: startUrl,
  created_at: s.createdAt.toISOString(),
  updated_at: s.updatedAt.toISOString(),
});
