// Moves stored secrets onto the current data key, so that older keys (or the first format,
// tied to the JWT secret) are no longer needed to read the database. Safe beside running
// control planes: each document is replaced only if nobody changed it meanwhile.
import type { SecretBox } from '../../crypto/secret-box.js';
import type { SealedValuesRepository } from './sealed-values.repository.js';

export interface ResealReport {
  /** Values now sealed under the current key that were not before. */
  resealed: number;
  /** Values no key of the keyring opens; they stay as they are. */
  unreadable: number;
  /** Documents changed by someone else meanwhile; run again to cover them. */
  skipped: number;
}

const LEGACY = 'enc:v1:';

/** `onlyLegacy`: just the first format, which depends on the JWT secret (done at every start). */
export async function resealSecrets(repo: SealedValuesRepository, box: SecretBox, { onlyLegacy = false } = {}): Promise<ResealReport> {
  const report: ResealReport = { resealed: 0, unreadable: 0, skipped: 0 };
  const stale = (value: string) => box.isStale(value) && (!onlyLegacy || value.startsWith(LEGACY));
  for (const found of await repo.list()) {
    let changed = 0;
    // Sealed values sit at any depth (oauth2.client_secret), so every string is looked at.
    const reseal = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(reseal);
      if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reseal(v)]));
      if (!box.isSealed(value) || !stale(value)) return value;
      try {
        const next = box.seal(box.open(value));
        changed++;
        return next;
      } catch {
        report.unreadable++;
        return value;
      }
    };
    const next = reseal(found.document) as Record<string, unknown>;
    if (changed === 0) continue;
    if (await repo.replace(found, next)) report.resealed += changed;
    else report.skipped++;
  }
  return report;
}

/** How many stored secrets there are, and how many no key of the keyring opens (after a restore). */
export async function countUnreadableSecrets(repo: SealedValuesRepository, box: SecretBox): Promise<{ sealed: number; unreadable: number }> {
  const count = { sealed: 0, unreadable: 0 };
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') Object.values(value).forEach(visit);
    else if (box.isSealed(value)) {
      count.sealed++;
      try {
        box.open(value);
      } catch {
        count.unreadable++;
      }
    }
  };
  for (const found of await repo.list()) visit(found.document);
  return count;
}
