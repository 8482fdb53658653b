// The Security page's shapes, from the control plane's own schemas.
import type { AuthenticationResponseJSON } from '@simplewebauthn/browser';
export type {
  OrganizationSecurityJson,
  PasskeyJson,
  RecoveryCodesJson,
  SecondFactorsJson,
  TotpSetupJson,
} from '../../../../src/features/second-factors/second-factors.schema';

/** One way of proving it is you (FactorProof of the API). */
export type FactorProof = { password: string } | { code: string } | { passkey: AuthenticationResponseJSON };
