// A user's second factors: the TOTP secret (sealed), the recovery codes (sha256) and passkeys.
// Single use is enforced by the statements themselves (a conditional update that answers
// whether it changed a row), so two requests racing with one code cannot both pass.
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUniqueViolation } from '../../db/pg-errors.js';
import type { Tx } from '../../db/tx.js';
import { jsonColumn } from '../../db/json-column.js';
import { AppError } from '../../errors.js';

export interface StoredTotp {
  secretSealed: string;
  confirmedAt: Date | null;
}

export interface Passkey {
  id: string;
  userId: string;
  name: string;
  credentialId: string;
  publicKey: Uint8Array;
  signCount: number;
  transports: string[];
  rpId: string;
  backedUp: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface FactorSummary {
  totp: boolean;
  passkeys: number;
  recoveryCodesLeft: number;
}

export interface FactorsRepository {
  summary(userId: string): Promise<FactorSummary>;
  totp(userId: string): Promise<StoredTotp | null>;
  /** Stores a pending secret (replacing a pending one); false when TOTP is already enabled. */
  savePendingTotp(userId: string, secretSealed: string): Promise<boolean>;
  /** Enables the pending secret `secretSealed` with the step of its first code; false when it changed or is enabled. */
  confirmTotp(tx: Tx, userId: string, secretSealed: string, step: number, at: Date): Promise<boolean>;
  /** Records `step` as used; false when it or a later step was used already. */
  useTotpStep(userId: string, step: number): Promise<boolean>;
  deleteTotp(tx: Tx, userId: string): Promise<boolean>;
  replaceRecoveryCodes(tx: Tx, userId: string, hashes: string[]): Promise<void>;
  /** Marks the unused code used; false when there is none such. */
  useRecoveryCode(userId: string, hash: string, at: Date): Promise<boolean>;
  passkeys(userId: string): Promise<Passkey[]>;
  passkey(userId: string, id: string): Promise<Passkey | null>;
  passkeyByCredential(credentialId: string): Promise<Passkey | null>;
  /** CONFLICT when the authenticator's credential is registered already. */
  insertPasskey(tx: Tx, passkey: Omit<Passkey, 'createdAt' | 'lastUsedAt'>): Promise<Passkey>;
  renamePasskey(userId: string, id: string, name: string): Promise<Passkey | null>;
  deletePasskey(tx: Tx, userId: string, id: string): Promise<boolean>;
  /** After an assertion: the authenticator's new signature counter and when. */
  passkeyUsed(id: string, signCount: number, at: Date): Promise<void>;
}

const PASSKEY_COLUMNS = 'id, user_id, name, credential_id, public_key, sign_count, transports, rp_id, backed_up, created_at, last_used_at';

export function createFactorsRepository(em: () => EntityManager): FactorsRepository {
  const run = (sql: string, params: unknown[], tx: EntityManager = em()) => tx.execute<Record<string, unknown>[]>(sql, params);
  const onePasskey = (rows: Record<string, unknown>[]) => (rows[0] ? toPasskey(rows[0]) : null);

  return {
    async summary(userId) {
      const [row] = await run(
        `select exists (select 1 from user_totp where user_id = ? and confirmed_at is not null) as totp,
                (select count(*) from passkeys where user_id = ?)::int as passkeys,
                (select count(*) from user_recovery_codes where user_id = ? and used_at is null)::int as codes_left`,
        [userId, userId, userId],
      );
      return { totp: Boolean(row!.totp), passkeys: Number(row!.passkeys), recoveryCodesLeft: Number(row!.codes_left) };
    },
    async totp(userId) {
      const [row] = await run('select secret_sealed, confirmed_at from user_totp where user_id = ?', [userId]);
      return row ? { secretSealed: String(row.secret_sealed), confirmedAt: row.confirmed_at ? new Date(row.confirmed_at as string) : null } : null;
    },
    async savePendingTotp(userId, secretSealed) {
      const rows = await run(
        `insert into user_totp (id, user_id, secret_sealed) values (gen_random_uuid(), ?, ?)
         on conflict (user_id) do update set secret_sealed = excluded.secret_sealed, last_used_step = null, updated_at = now()
           where user_totp.confirmed_at is null
         returning user_id`,
        [userId, secretSealed],
      );
      return rows.length > 0;
    },
    async confirmTotp(tx, userId, secretSealed, step, at) {
      const rows = await run(
        'update user_totp set confirmed_at = ?, last_used_step = ?, updated_at = now() where user_id = ? and secret_sealed = ? and confirmed_at is null returning user_id',
        [at, step, userId, secretSealed],
        tx,
      );
      return rows.length > 0;
    },
    async useTotpStep(userId, step) {
      const rows = await run(
        `update user_totp set last_used_step = ?, updated_at = now()
         where user_id = ? and confirmed_at is not null and (last_used_step is null or last_used_step < ?) returning user_id`,
        [step, userId, step],
      );
      return rows.length > 0;
    },
    async deleteTotp(tx, userId) {
      await run('delete from user_recovery_codes where user_id = ?', [userId], tx);
      return (await run('delete from user_totp where user_id = ? and confirmed_at is not null returning user_id', [userId], tx)).length > 0;
    },
    async replaceRecoveryCodes(tx, userId, hashes) {
      await run('delete from user_recovery_codes where user_id = ?', [userId], tx);
      await run(
        `insert into user_recovery_codes (id, user_id, code_hash) select gen_random_uuid(), ?, h from jsonb_array_elements_text(?::jsonb) as h`,
        [userId, JSON.stringify(hashes)],
        tx,
      );
    },
    async useRecoveryCode(userId, hash, at) {
      const rows = await run('update user_recovery_codes set used_at = ? where user_id = ? and code_hash = ? and used_at is null returning id', [at, userId, hash]);
      return rows.length > 0;
    },
    async passkeys(userId) {
      return (await run(`select ${PASSKEY_COLUMNS} from passkeys where user_id = ? order by created_at, id`, [userId])).map(toPasskey);
    },
    async passkey(userId, id) {
      return onePasskey(await run(`select ${PASSKEY_COLUMNS} from passkeys where user_id = ? and id = ?`, [userId, id]));
    },
    async passkeyByCredential(credentialId) {
      return onePasskey(await run(`select ${PASSKEY_COLUMNS} from passkeys where credential_id = ?`, [credentialId]));
    },
    async insertPasskey(tx, p) {
      try {
        const [row] = await run(
          `insert into passkeys (id, user_id, name, credential_id, public_key, sign_count, transports, rp_id, backed_up)
           values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?) returning ${PASSKEY_COLUMNS}`,
          [p.id, p.userId, p.name, p.credentialId, Buffer.from(p.publicKey).toString('base64url'), p.signCount, JSON.stringify(p.transports), p.rpId, p.backedUp],
          tx,
        );
        return toPasskey(row!);
      } catch (err) {
        if (isUniqueViolation(err, 'passkeys_credential_key')) throw new AppError('CONFLICT', 'this passkey is registered already');
        throw err;
      }
    },
    async renamePasskey(userId, id, name) {
      return onePasskey(await run(`update passkeys set name = ? where user_id = ? and id = ? returning ${PASSKEY_COLUMNS}`, [name, userId, id]));
    },
    async deletePasskey(tx, userId, id) {
      return (await run('delete from passkeys where user_id = ? and id = ? returning id', [userId, id], tx)).length > 0;
    },
    async passkeyUsed(id, signCount, at) {
      await run('update passkeys set sign_count = ?, last_used_at = ? where id = ?', [signCount, at, id]);
    },
  };
}

function toPasskey(r: Record<string, unknown>): Passkey {
  return {
    id: String(r.id),
    userId: String(r.user_id),
    name: String(r.name),
    credentialId: String(r.credential_id),
    publicKey: new Uint8Array(Buffer.from(String(r.public_key), 'base64url')),
    signCount: Number(r.sign_count),
    transports: jsonColumn<string[]>(r.transports),
    rpId: String(r.rp_id),
    backedUp: Boolean(r.backed_up),
    createdAt: new Date(r.created_at as string),
    lastUsedAt: r.last_used_at ? new Date(r.last_used_at as string) : null,
  };
}
