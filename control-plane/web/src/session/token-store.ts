// The signed-in session, kept in localStorage so a reload stays signed in. Outside React so
// that the API client can end the session when the server says the token is no longer good.
export interface StoredSession {
  token: string;
  userId: string;
  organizationId: string;
  email: string;
  /** Renews `token` before it expires (POST /auth/refresh); absent in sessions stored before sessions had one. */
  refreshToken?: string;
}

/** The answer of every sign-in (password, second factor, passkey, SSO, invitation). */
export interface SignInAnswer {
  token: string;
  user_id: string;
  org_id: string;
  refresh_token?: string;
}

export function storedSessionOf(answer: SignInAnswer, email: string): StoredSession {
  return { token: answer.token, userId: answer.user_id, organizationId: answer.org_id, email: email.trim().toLowerCase(), refreshToken: answer.refresh_token };
}

type Listener = () => void;

const STORAGE_KEY = 'outpost.session';
const listeners = new Set<Listener>();
let session: StoredSession | null = read();
let endedBecause: string | null = null;

function read(): StoredSession | null {
  try {
    const parsed = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null') as StoredSession | null;
    return parsed && typeof parsed.token === 'string' && !isExpired(parsed.token) ? parsed : null;
  } catch {
    return null;
  }
}

/** The token's `exp` in ms since the epoch; null when it has none or cannot be read. */
export function expiryOf(token: string): number | null {
  try {
    const payload = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: number };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : null;
  } catch {
    return null;
  }
}

function isExpired(token: string): boolean {
  const exp = expiryOf(token);
  return exp !== null && exp <= Date.now();
}

function publish(): void {
  for (const listener of listeners) listener();
}

export const tokenStore = {
  current: () => session,
  /** Why the last session ended, shown on the sign-in page; cleared when read by a new sign-in. */
  endedBecause: () => endedBecause,
  set(next: StoredSession): void {
    session = next;
    endedBecause = null;
    localStorage.setItem(STORAGE_KEY, JSON.stringify(next));
    publish();
  },
  clear(): void {
    session = null;
    localStorage.removeItem(STORAGE_KEY);
    publish();
  },
  expire(reason: string): void {
    if (!session) return;
    endedBecause = reason;
    tokenStore.clear();
  },
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

// Another tab signing in or out changes this one too.
window.addEventListener('storage', (event) => {
  if (event.key !== STORAGE_KEY) return;
  session = read();
  publish();
});
