// The signed-in user's own second factors (the Security page): TOTP set-up and removal,
// recovery codes, and passkeys. Removing a factor or replacing the codes needs proof
// (factor-proof.ts). API keys never manage factors: they are not a person.
import type { Tx } from '../../db/tx.js';
import { AppError, notFound, validationFailed } from '../../errors.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { Actor } from '../auth/actor.js';
import { auditWho } from './audit-who.js';
import type { FactorProofCheck } from './factor-proof.js';
import type { FactorsRepository, FactorSummary, Passkey } from './factors.repository.js';
import type { RelyingParty } from './relying-party.js';
import type { FactorProof, PasskeyAttestation } from './second-factors.schema.js';
import type { TotpFactor } from './totp-factor.js';
import type { WebAuthnCeremonies } from './webauthn-ceremonies.js';

export interface SecondFactorsDeps {
  factors: FactorsRepository;
  totp: TotpFactor;
  ceremonies: WebAuthnCeremonies;
  prove: FactorProofCheck;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  audit: AuditTrail;
}

export interface SecondFactorsOverview extends FactorSummary {
  passkeyList: Passkey[];
}

const personOf = (actor: Actor) => {
  if (actor.apiKey) throw new AppError('FORBIDDEN', 'an API key cannot manage second factors');
  return { id: actor.userId, email: actor.email };
};
const whoOf = (actor: Actor, address: string) => auditWho(personOf(actor), actor.organizationId, address);

export function createSecondFactorsService({ factors, totp, ceremonies, prove, transaction, audit }: SecondFactorsDeps) {
  return {
    async overview(actor: Actor): Promise<SecondFactorsOverview> {
      const user = personOf(actor);
      const [summary, passkeyList] = await Promise.all([factors.summary(user.id), factors.passkeys(user.id)]);
      return { ...summary, passkeyList };
    },

    startTotp: (actor: Actor, address: string) => totp.start(personOf(actor), whoOf(actor, address)),

    async confirmTotp(actor: Actor, code: string, address: string): Promise<string[]> {
      const codes = await totp.confirm(actor.userId, code, whoOf(actor, address));
      if (!codes) throw validationFailed('code is wrong: check that the device shows the time right', [{ path: 'code', message: 'is wrong' }]);
      return codes;
    },

    async disableTotp(actor: Actor, proof: FactorProof, address: string): Promise<void> {
      const who = whoOf(actor, address);
      await prove(actor.userId, proof, who);
      await totp.disable(actor.userId, who);
    },

    async regenerateRecoveryCodes(actor: Actor, proof: FactorProof, address: string): Promise<string[]> {
      const who = whoOf(actor, address);
      await prove(actor.userId, proof, who);
      return totp.regenerateRecoveryCodes(actor.userId, who);
    },

    passkeyOptions: (actor: Actor, rp: RelyingParty) => ceremonies.registrationOptions(personOf(actor), rp),

    /** Options for a passkey given as proof (removing a factor). */
    proofOptions: (actor: Actor, rp: RelyingParty) => ceremonies.assertionOptions('proof', rp, personOf(actor).id),

    async addPasskey(actor: Actor, name: string, answer: PasskeyAttestation, address: string): Promise<Passkey> {
      const who = whoOf(actor, address);
      const passkey = await ceremonies.verifyRegistration(actor.userId, name, answer);
      return transaction(async (tx) => {
        const stored = await factors.insertPasskey(tx, passkey);
        await audit.record({ ...who, action: 'create', resource: 'passkey', resourceId: stored.id, after: { name } }, tx);
        return stored;
      });
    },

    async renamePasskey(actor: Actor, id: string, name: string): Promise<Passkey> {
      const renamed = await factors.renamePasskey(personOf(actor).id, id, name);
      if (!renamed) throw notFound('passkey');
      return renamed;
    },

    async removePasskey(actor: Actor, id: string, proof: FactorProof, address: string): Promise<void> {
      const who = whoOf(actor, address);
      const passkey = await factors.passkey(actor.userId, id);
      if (!passkey) throw notFound('passkey');
      await prove(actor.userId, proof, who);
      await transaction(async (tx) => {
        if (!(await factors.deletePasskey(tx, actor.userId, id))) throw notFound('passkey');
        await audit.record({ ...who, action: 'delete', resource: 'passkey', resourceId: id, before: { name: passkey.name } }, tx);
      });
    },
  };
}

export type SecondFactorsService = ReturnType<typeof createSecondFactorsService>;
