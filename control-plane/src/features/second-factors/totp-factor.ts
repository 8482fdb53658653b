// TOTP as a factor of one user: enrolment (a pending secret, then a first code confirms it and
// brings ten recovery codes), checking a code once per step, and removal. The secret is sealed
// at rest with the secret box; recovery codes are kept as sha256 only.
import type { Clock } from '../../clock.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Tx } from '../../db/tx.js';
import { AppError } from '../../errors.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { AuditWho } from './audit-who.js';
import type { FactorsRepository } from './factors.repository.js';
import { newRecoveryCodes, recoveryCodeHash } from './recovery-codes.js';
import { matchTotpStep, newTotpSecret } from './totp.js';

export interface TotpSetup {
  secret: string;
  uri: string;
  /** The URI as an SVG QR code, a data: URL for an <img>. */
  qrCode: string;
}

export interface TotpFactorDeps {
  factors: FactorsRepository;
  box: SecretBox;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  audit: AuditTrail;
  clock: Clock;
}

export function createTotpFactor({ factors, box, transaction, audit, clock }: TotpFactorDeps) {
  const freshCodes = async (tx: Tx, userId: string) => {
    const codes = newRecoveryCodes();
    await factors.replaceRecoveryCodes(tx, userId, codes.map(recoveryCodeHash));
    return codes;
  };

  return {
    /** A new pending secret, replacing one not yet confirmed; CONFLICT while TOTP is enabled. */
    async start(user: { id: string; email: string }, who: AuditWho): Promise<TotpSetup> {
      const { secret, uri } = newTotpSecret(user.email);
      if (!(await factors.savePendingTotp(user.id, box.seal(secret)))) {
        throw new AppError('CONFLICT', 'TOTP is enabled already; disable it before setting it up again');
      }
      // Recorded here, without the answer: the secret must not reach the audit log.
      await audit.record({ ...who, action: 'start_setup', resource: 'totp', resourceId: user.id });
      // Loaded when someone sets up an app: about 10 MB resident otherwise paid by every installation (P9).
      const { default: qrcode } = await import('qrcode');
      const svg = await qrcode.toString(uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
      return { secret, uri, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
    },

    /** Enables the pending secret when `code` is right: the recovery codes, or null for a wrong code. */
    async confirm(userId: string, code: string, who: AuditWho): Promise<string[] | null> {
      const stored = await factors.totp(userId);
      if (!stored) throw new AppError('CONFLICT', 'start TOTP set-up first (POST /profile/mfa/totp)');
      if (stored.confirmedAt) throw new AppError('CONFLICT', 'TOTP is enabled already');
      const step = matchTotpStep(box.open(stored.secretSealed), code, clock.now());
      if (step === null) return null;
      return transaction(async (tx) => {
        // The secret compared too: a set-up started again meanwhile made this code's secret stale.
        if (!(await factors.confirmTotp(tx, userId, stored.secretSealed, step, clock.now()))) throw new AppError('CONFLICT', 'the TOTP set-up changed meanwhile; start again');
        const codes = await freshCodes(tx, userId);
        await audit.record({ ...who, action: 'enable', resource: 'totp', resourceId: userId }, tx);
        return codes;
      });
    },

    /** Whether `code` is right now and its step was not used yet (the step is then used up). */
    async verify(userId: string, code: string): Promise<boolean> {
      const stored = await factors.totp(userId);
      if (!stored?.confirmedAt) return false;
      const step = matchTotpStep(box.open(stored.secretSealed), code, clock.now());
      return step !== null && (await factors.useTotpStep(userId, step));
    },

    async useRecoveryCode(userId: string, code: string): Promise<boolean> {
      return factors.useRecoveryCode(userId, recoveryCodeHash(code), clock.now());
    },

    async regenerateRecoveryCodes(userId: string, who: AuditWho): Promise<string[]> {
      if (!(await factors.summary(userId)).totp) throw new AppError('CONFLICT', 'recovery codes come with TOTP: set up TOTP first');
      return transaction(async (tx) => {
        const codes = await freshCodes(tx, userId);
        await audit.record({ ...who, action: 'regenerate', resource: 'recovery_codes', resourceId: userId }, tx);
        return codes;
      });
    },

    /** Removes TOTP and its recovery codes; NOT_FOUND when it was not enabled. */
    async disable(userId: string, who: AuditWho): Promise<void> {
      await transaction(async (tx) => {
        if (!(await factors.deleteTotp(tx, userId))) throw new AppError('NOT_FOUND', 'TOTP is not enabled');
        await audit.record({ ...who, action: 'disable', resource: 'totp', resourceId: userId }, tx);
      });
    },
  };
}

export type TotpFactor = ReturnType<typeof createTotpFactor>;
