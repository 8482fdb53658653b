// Whether the session a token names is still alive, asked on every request and WebSocket
// upgrade. The answer is read from the database at most every LIVENESS_TTL_MS per session, so
// an ended session is refused within that time on every replica even when the cluster bus
// missed the news; a replica told of the end forgets its answer at once. Tokens that name no
// session (minted outside sign-in) are accepted only if issued after the user last signed
// out everywhere.
import { AppError } from '../../errors.js';
import type { SessionsRepository } from './sessions.repository.js';
import type { SignInMethod } from './sign-in-method.js';

export const LIVENESS_TTL_MS = 2_000;
/** last_seen_at is written at most this often per session: a write per request would cost more than the request. */
const TOUCH_EVERY_MS = 60_000;

export interface TokenSession {
  userId: string;
  sessionId?: string;
  issuedAt: Date;
}

export interface SessionLiveness {
  /** The method the token's session was started with; UNAUTHENTICATED when it has ended. */
  assertAlive(token: TokenSession): Promise<SignInMethod | undefined>;
  forgetSession(sessionId: string): void;
  forgetUser(userId: string): void;
  clear(): void;
}

interface Known {
  userId: string;
  until: number;
  /** Why the session may not be used, or null while it may. */
  refusal: string | null;
  method?: SignInMethod;
}

const ENDED = 'the session has ended; sign in again';

export function createSessionLiveness(repository: Pick<SessionsRepository, 'life' | 'tokensValidAfter' | 'touch'>, capacity = 20_000, now: () => number = Date.now): SessionLiveness {
  const known = new Map<string, Known>();
  const remember = (key: string, entry: Known) => {
    known.delete(key);
    if (known.size >= capacity) known.delete(known.keys().next().value!);
    known.set(key, entry);
  };

  const read = async (token: TokenSession): Promise<Known> => {
    const until = now() + LIVENESS_TTL_MS;
    if (!token.sessionId) {
      const validAfter = await repository.tokensValidAfter(token.userId);
      // Whole seconds: a token issued in the second of a sign-out-everywhere is refused.
      const refused = validAfter !== null && token.issuedAt.getTime() <= validAfter.getTime();
      return { userId: token.userId, until, refusal: refused ? ENDED : null };
    }
    const life = await repository.life(token.sessionId);
    if (!life || life.userId !== token.userId || !life.alive) return { userId: token.userId, until, refusal: ENDED };
    if (now() - life.lastSeenAt.getTime() > TOUCH_EVERY_MS) void repository.touch(token.sessionId).catch(() => undefined);
    return { userId: token.userId, until, refusal: null, method: life.method };
  };

  return {
    async assertAlive(token) {
      const key = token.sessionId ?? `user:${token.userId}:${token.issuedAt.getTime()}`;
      let entry = known.get(key);
      if (!entry || entry.until <= now()) {
        entry = await read(token);
        remember(key, entry);
      }
      if (entry.refusal) throw new AppError('UNAUTHENTICATED', entry.refusal);
      return entry.method;
    },
    forgetSession(sessionId) {
      known.delete(sessionId);
    },
    forgetUser(userId) {
      for (const [key, entry] of known) if (entry.userId === userId) known.delete(key);
    },
    clear() {
      known.clear();
    },
  };
}
