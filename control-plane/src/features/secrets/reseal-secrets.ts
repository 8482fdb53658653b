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
  for (const found of await repo.list()) {
    const next = { ...found.document };
    let changed = 0;
    for (const [key, value] of Object.entries(next)) {
      if (!box.isSealed(value) || !box.isStale(value) || (onlyLegacy && !value.startsWith(LEGACY))) continue;
      try {
        next[key] = box.seal(box.open(value));
        changed++;
      } catch {
        report.unreadable++;
      }
    }
    if (changed === 0) continue;
    if (await repo.replace(found, next)) report.resealed += changed;
    else report.skipped++;
  }
  return report;
}
