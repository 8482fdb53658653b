// Sessions (issue 43): every sign-in starts one; its access tokens (72 h, API.md) name it and
// its refresh token renews them. Ending a session, every session of a user, or a user's
// sessions in an organization is told to every replica before it is answered, and the
// liveness cache refuses it within seconds even where that message was lost.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AppError, notFound } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { TokenService } from '../auth/token-service.js';
import type { OrganizationEntry } from './organization-entry.js';
import type { SessionsRepository, StoredSession } from './sessions.repository.js';
import type { SignInMethod } from './sign-in-method.js';

const REFRESH_PREFIX = 'ors_';

export interface SignInContext {
  address: string;
  userAgent: string | undefined;
}

export interface StartedSession {
  token: string;
  refreshToken: string;
  sessionId: string;
  expiresAt: Date;
  userId: string;
  organizationId: string;
}

export interface SessionEnds {
  /** Tells every replica (and this one) that these sessions ended. */
  sessionsEnded(sessionIds: string[]): Promise<void>;
  /** Tells every replica that every session and token of the user ended. */
  userSessionsEnded(userId: string): Promise<void>;
}

export interface SessionsServiceDeps {
  sessions: SessionsRepository;
  tokens: TokenService;
  ends: SessionEnds;
  /** The rules of another organization that a session refreshing into it must meet. */
  enter: OrganizationEntry;
}

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');
const USER_AGENT_MAX = 512;

export function createSessionsService({ sessions, tokens, ends, enter }: SessionsServiceDeps) {
  const issue = async (session: { id: string; userId: string; organizationId: string }, email: string, refreshToken: string): Promise<StartedSession> => {
    const { token, expiresAt } = await tokens.issue({ userId: session.userId, tenantId: session.organizationId, email, sessionId: session.id });
    return { token, refreshToken, sessionId: session.id, expiresAt, userId: session.userId, organizationId: session.organizationId };
  };
  const newRefreshToken = () => `${REFRESH_PREFIX}${randomBytes(32).toString('base64url')}`;

  return {
    async start(user: { id: string; email: string }, organizationId: string, method: SignInMethod, context: SignInContext): Promise<StartedSession> {
      const refreshToken = newRefreshToken();
      const session = { id: randomUUID(), userId: user.id, organizationId };
      await sessions.insert({
        ...session,
        method,
        userAgent: context.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
        address: context.address,
        refreshHash: digest(refreshToken),
      });
      return issue(session, user.email, refreshToken);
    },

    /**
     * A new access token and refresh token for a refresh token, in the session's organization
     * (or `organizationId`, one the user belongs to). A refresh token already exchanged is a
     * stolen copy or a replay: the session ends.
     */
    async refresh(refreshToken: string, organizationId: string | undefined, address: string): Promise<StartedSession> {
      const invalid = () => new AppError('UNAUTHENTICATED', 'the refresh token is invalid or its session has ended');
      if (!refreshToken.startsWith(REFRESH_PREFIX)) throw invalid();
      const hash = digest(refreshToken);
      const match = await sessions.byRefreshHash(hash);
      if (!match?.alive) throw invalid();
      const { session } = match;
      if (match.reused) {
        await this.end(session.userId, session.id);
        throw invalid();
      }
      const organization = organizationId ?? session.organizationId;
      const email = await sessions.memberEmail(session.userId, organization);
      if (!email) throw new AppError('FORBIDDEN', 'you are not a member of this organization');
      if (organization !== session.organizationId) {
        await enter({ userId: session.userId, email, organizationId: session.organizationId, sessionId: session.id, signInMethod: session.method }, organization, address);
      }
      const next = newRefreshToken();
      if (!(await sessions.rotate(session.id, hash, digest(next), organization))) throw invalid();
      return issue({ id: session.id, userId: session.userId, organizationId: organization }, email, next);
    },

    async list(actor: Actor): Promise<(StoredSession & { current: boolean })[]> {
      const user = assertUser(actor);
      return (await sessions.listOfUser(user)).map((s) => ({ ...s, current: s.id === actor.sessionId }));
    },

    /** Ends one session of the actor (sign out, or a session on another device). */
    async endOwn(actor: Actor, sessionId: string): Promise<void> {
      if (!(await this.end(assertUser(actor), sessionId))) throw notFound('session');
    },

    /** "Sign out everywhere": every session and token of the actor, but the current one when `keepCurrent`. */
    async endAllOwn(actor: Actor, keepCurrent: boolean): Promise<number> {
      return this.endAllOfUser(assertUser(actor), keepCurrent ? actor.sessionId : undefined);
    },

    async end(userId: string, sessionId: string): Promise<boolean> {
      if (!(await sessions.end(userId, sessionId))) return false;
      await ends.sessionsEnded([sessionId]);
      return true;
    },

    /** Every session of the user but `exceptSessionId` (password change, reset, sign out everywhere). */
    async endAllOfUser(userId: string, exceptSessionId?: string): Promise<number> {
      const ended = await sessions.endAllOfUser(userId, exceptSessionId);
      await ends.userSessionsEnded(userId);
      return ended.length;
    },

    /** The user's sessions started in (or last refreshed into) the organization: removed by SSO. */
    async endOfUserInOrganization(userId: string, organizationId: string): Promise<number> {
      const ended = await sessions.endOfUserInOrganization(userId, organizationId);
      if (ended.length > 0) await ends.sessionsEnded(ended);
      return ended.length;
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;

function assertUser(actor: Actor): string {
  if (actor.apiKey) throw new AppError('FORBIDDEN', 'API keys have no sessions; revoke the key instead');
  return actor.userId;
}
