// API keys verified recently, so a busy client does not pay argon2 and a query on every call:
// kept VERIFIED_TTL_MS at most, and at most `capacity` of them (the oldest make room), so
// many distinct keys cannot grow the process without bound.
import { createHash } from 'node:crypto';
import type { ApiKey } from './api-keys.repository.js';

const VERIFIED_TTL_MS = 60_000;

export interface VerifiedKeys {
  get(raw: string): ApiKey | undefined;
  remember(raw: string, key: ApiKey): void;
  /** Forgets every entry of a revoked key at once (in this process). */
  forget(keyId: string): void;
  /** Forgets every key (revocations may have been missed). */
  clear(): void;
}

export function createVerifiedKeys(capacity = 10_000, now: () => number = Date.now): VerifiedKeys {
  const entries = new Map<string, { key: ApiKey; until: number }>();
  // The raw key is a secret: memory holds only its digest.
  const digest = (raw: string) => createHash('sha256').update(raw).digest('hex');
  return {
    get(raw) {
      const hash = digest(raw);
      const entry = entries.get(hash);
      if (entry && entry.until > now()) return entry.key;
      if (entry) entries.delete(hash);
      return undefined;
    },
    remember(raw, key) {
      const hash = digest(raw);
      entries.delete(hash);
      if (entries.size >= capacity) entries.delete(entries.keys().next().value!);
      entries.set(hash, { key, until: now() + VERIFIED_TTL_MS });
    },
    forget(keyId) {
      for (const [hash, entry] of entries) if (entry.key.id === keyId) entries.delete(hash);
    },
    clear() {
      entries.clear();
    },
  };
}
