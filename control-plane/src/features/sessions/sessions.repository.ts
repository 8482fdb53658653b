// The sessions table (migration 0024): one row per sign-in, ended by setting ended_at.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SignInMethod } from './sign-in-method.js';

export interface StoredSession {
  id: string;
  userId: string;
  organizationId: string;
  method: SignInMethod;
  userAgent: string | null;
  address: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
}

export interface NewSession {
  id: string;
  userId: string;
  organizationId: string;
  method: SignInMethod;
  userAgent: string | null;
  address: string | null;
  refreshHash: string;
}

/**
 * How long a session lives past its start or last refresh. Kept by the database's clock, as is
 * every check of it: the tokens' `exp` follows the real time too, not a clock tests move.
 */
const LIFETIME = `interval '30 days'`;

/** What every request of a session needs to know, read at most every few seconds per session. */
export interface SessionLife {
  userId: string;
  method: SignInMethod;
  alive: boolean;
  lastSeenAt: Date;
}

export type RefreshMatch = { session: StoredSession; reused: boolean; alive: boolean };

export interface SessionsRepository {
  insert(session: NewSession): Promise<void>;
  life(sessionId: string): Promise<SessionLife | null>;
  /** When tokens naming no session stop being accepted for this user (null: never set). */
  tokensValidAfter(userId: string): Promise<Date | null>;
  touch(sessionId: string): Promise<void>;
  listOfUser(userId: string): Promise<StoredSession[]>;
  /** The live session holding this refresh token, or the one that held it just before (a reuse). */
  byRefreshHash(hash: string): Promise<RefreshMatch | null>;
  rotate(sessionId: string, oldHash: string, newHash: string, organizationId: string): Promise<boolean>;
  end(userId: string, sessionId: string): Promise<boolean>;
  /** Ends them all but `except`; also ends every token of the user that names no session. */
  endAllOfUser(userId: string, except?: string): Promise<string[]>;
  endOfUserInOrganization(userId: string, organizationId: string): Promise<string[]>;
  /** The user's e-mail while they are a member of the organization, else null. */
  memberEmail(userId: string, organizationId: string): Promise<string | null>;
}

const COLUMNS = 'id, user_id, organization_id, method, user_agent, address, created_at, last_seen_at, expires_at, ended_at';

export function createSessionsRepository(em: () => EntityManager): SessionsRepository {
  const run = (sql: string, params: unknown[]) => em().execute<Record<string, unknown>[]>(sql, params);
  return {
    async insert(s) {
      await run(
        `insert into sessions (id, user_id, organization_id, method, user_agent, address, expires_at, refresh_hash) values (?, ?, ?, ?, ?, ?, now() + ${LIFETIME}, ?)`,
        [s.id, s.userId, s.organizationId, s.method, s.userAgent, s.address, s.refreshHash],
      );
    },
    async life(sessionId) {
      const [row] = await run('select user_id, method, last_seen_at, ended_at is null and expires_at > now() as alive from sessions where id = ?', [sessionId]);
      return row ? { userId: String(row.user_id), method: row.method as SignInMethod, alive: row.alive === true, lastSeenAt: new Date(row.last_seen_at as string) } : null;
    },
    async tokensValidAfter(userId) {
      const [row] = await run('select tokens_valid_after from users where id = ?', [userId]);
      return row?.tokens_valid_after ? new Date(row.tokens_valid_after as string) : null;
    },
    async touch(sessionId) {
      await run('update sessions set last_seen_at = now() where id = ?', [sessionId]);
    },
    async listOfUser(userId) {
      return (await run(`select ${COLUMNS} from sessions where user_id = ? and ended_at is null and expires_at > now() order by last_seen_at desc, id`, [userId])).map(fromRow);
    },
    async byRefreshHash(hash) {
      const [row] = await run(
        `select ${COLUMNS}, refresh_hash = ? as current, ended_at is null and expires_at > now() as alive from sessions where refresh_hash = ? or previous_refresh_hash = ? limit 1`,
        [hash, hash, hash],
      );
      return row ? { session: fromRow(row), reused: row.current !== true, alive: row.alive === true } : null;
    },
    async rotate(sessionId, oldHash, newHash, organizationId) {
      const rows = await run(
        `update sessions set refresh_hash = ?, previous_refresh_hash = refresh_hash, expires_at = now() + ${LIFETIME}, organization_id = ?, last_seen_at = now()
          where id = ? and refresh_hash = ? and ended_at is null and expires_at > now() returning id`,
        [newHash, organizationId, sessionId, oldHash],
      );
      return rows.length === 1;
    },
    async end(userId, sessionId) {
      return (await run('update sessions set ended_at = now() where id = ? and user_id = ? and ended_at is null returning id', [sessionId, userId])).length === 1;
    },
    async endAllOfUser(userId, except) {
      return em().transactional(async (tx) => {
        await tx.execute('update users set tokens_valid_after = now() where id = ?', [userId]);
        const rows = await tx.execute<{ id: string }[]>(
          'update sessions set ended_at = now() where user_id = ? and ended_at is null and id is distinct from ? returning id',
          [userId, except ?? null],
        );
        return rows.map((r) => r.id);
      });
    },
    async endOfUserInOrganization(userId, organizationId) {
      const rows = await run('update sessions set ended_at = now() where user_id = ? and organization_id = ? and ended_at is null returning id', [userId, organizationId]);
      return rows.map((r) => String(r.id));
    },
    async memberEmail(userId, organizationId) {
      const [row] = await run('select u.email from users u join memberships m on m.user_id = u.id where u.id = ? and m.organization_id = ?', [userId, organizationId]);
      return row ? String(row.email) : null;
    },
  };
}

function fromRow(r: Record<string, unknown>): StoredSession {
  return {
    id: String(r.id),
    userId: String(r.user_id),
    organizationId: String(r.organization_id),
    method: r.method as SignInMethod,
    userAgent: (r.user_agent as string | null) ?? null,
    address: (r.address as string | null) ?? null,
    createdAt: new Date(r.created_at as string),
    lastSeenAt: new Date(r.last_seen_at as string),
    expiresAt: new Date(r.expires_at as string),
    endedAt: r.ended_at ? new Date(r.ended_at as string) : null,
  };
}
