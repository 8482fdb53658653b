// Sign-ins under way and the one-time codes that finish them. Both are taken with one
// `delete … returning`, so each is used at most once even when two requests race; expired
// rows are swept whenever a new one is written.
import type { EntityManager } from '@mikro-orm/postgresql';

export interface PendingLogin {
  stateHash: string;
  organizationId: string;
  /** sha256 of the browser key its cookie holds. */
  browserHash: string;
  nonce: string;
  codeVerifierSealed: string;
  redirect: string;
  expiresAt: Date;
}

export interface ExchangeCode {
  codeHash: string;
  userId: string;
  organizationId: string;
  redirect: string;
  expiresAt: Date;
}

export interface SsoLoginsRepository {
  savePending(login: PendingLogin, now: Date): Promise<void>;
  /** The sign-in of that state, started by that browser for that organization and unexpired; removed. */
  takePending(stateHash: string, browserHash: string, organizationId: string, now: Date): Promise<PendingLogin | null>;
  saveCode(code: ExchangeCode, now: Date): Promise<void>;
  /** The code's sign-in when unexpired, with the user's e-mail; removed. */
  takeCode(codeHash: string, now: Date): Promise<(ExchangeCode & { email: string }) | null>;
}

export function createSsoLoginsRepository(em: () => EntityManager): SsoLoginsRepository {
  const run = (sql: string, params: unknown[]) => em().execute<Record<string, unknown>[]>(sql, params);
  return {
    async savePending(l, now) {
      await run('delete from sso_logins where expires_at <= ?', [now]);
      await run('insert into sso_logins (state_hash, organization_id, browser_hash, nonce, code_verifier_sealed, redirect, expires_at) values (?, ?, ?, ?, ?, ?, ?)', [
        l.stateHash, l.organizationId, l.browserHash, l.nonce, l.codeVerifierSealed, l.redirect, l.expiresAt,
      ]);
    },
    async takePending(stateHash, browserHash, organizationId, now) {
      const [row] = await run('delete from sso_logins where state_hash = ? and browser_hash = ? and organization_id = ? returning *', [stateHash, browserHash, organizationId]);
      if (!row || new Date(row.expires_at as string) <= now) return null;
      return {
        stateHash: String(row.state_hash),
        organizationId: String(row.organization_id),
        browserHash: String(row.browser_hash),
        nonce: String(row.nonce),
        codeVerifierSealed: String(row.code_verifier_sealed),
        redirect: String(row.redirect),
        expiresAt: new Date(row.expires_at as string),
      };
    },
    async saveCode(c, now) {
      await run('delete from sso_exchange_codes where expires_at <= ?', [now]);
      await run('insert into sso_exchange_codes (code_hash, user_id, organization_id, redirect, expires_at) values (?, ?, ?, ?, ?)', [c.codeHash, c.userId, c.organizationId, c.redirect, c.expiresAt]);
    },
    async takeCode(codeHash, now) {
      const [row] = await run(
        'with taken as (delete from sso_exchange_codes where code_hash = ? returning *) select t.*, u.email from taken t join users u on u.id = t.user_id',
        [codeHash],
      );
      if (!row || new Date(row.expires_at as string) <= now) return null;
      return {
        codeHash: String(row.code_hash),
        userId: String(row.user_id),
        organizationId: String(row.organization_id),
        redirect: String(row.redirect),
        expiresAt: new Date(row.expires_at as string),
        email: String(row.email),
      };
    },
  };
}
