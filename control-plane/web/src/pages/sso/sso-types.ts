// Single sign-on as the API answers and takes it, typed from the control plane's own schemas
// (control-plane/src/features/sso/sso.schema.ts); type-only, so nothing of the server reaches
// the bundle.
import type { z } from 'zod';
import type { SsoDiscoveryJson, SsoSettingsInput, SsoSettingsJson, SsoTestJson } from '../../../../src/features/sso/sso.schema';
import type { SignInAnswer } from '../../session/token-store';

export type SsoSettings = z.infer<typeof SsoSettingsJson>;
export type SsoSettingsBody = z.input<typeof SsoSettingsInput>;
export type SsoTestResult = z.infer<typeof SsoTestJson>;
export type SsoDiscovery = z.infer<typeof SsoDiscoveryJson>;
export type MappedRole = SsoSettings['role_mapping'][number]['role'];
/** POST /auth/sso/exchange: a sign-in's answer, whose user and where the sign-in was started for. */
export type SsoSession = SignInAnswer & { email: string; redirect: string };

export const SSO_PATH = '/organization/sso';
