// Encrypts secrets kept at rest (check passwords, channel keys) with AES-256-GCM under the
// data keyring, so a database dump alone does not reveal them. Each sealed value names its
// key (`enc:v2:<key id>:<iv|tag|ciphertext>`, the id bound in as associated data), so keys
// can rotate: a value opens with whichever key sealed it, and re-sealing moves it to the
// current one. Values of the first format (`enc:v1:`, a key derived from the JWT secret)
// still open while that secret is the one they were sealed under, until re-sealed.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Keyring } from './keyring.js';

const V1 = 'enc:v1:';
const V2 = 'enc:v2:';

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
  isSealed(value: unknown): value is string;
  /** Sealed under anything but the current key (an older key, or the first format). */
  isStale(sealed: string): boolean;
}

class UnknownKeyError extends Error {}

export function createSecretBox(keyring: Keyring, legacyJwtSecret?: string): SecretBox {
  const legacyKey = legacyJwtSecret ? Buffer.from(hkdfSync('sha256', legacyJwtSecret, 'outpost', 'check-option-secrets', 32)) : undefined;

  const keyFor = (id: string): Buffer => {
    let key = keyring.find(id);
    // Another process may have rotated the keyring file since it was read.
    if (!key && keyring.reload()) key = keyring.find(id);
    if (!key) throw new UnknownKeyError(`no data key "${id}" in the keyring; restore it from the backup of the keys`);
    return key.key;
  };

  return {
    seal(plain) {
      const { id, key } = keyring.current();
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(id));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${V2}${id}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    open(sealed) {
      if (sealed.startsWith(V1)) {
        if (!legacyKey) throw new UnknownKeyError('a value of the first format needs the JWT secret it was sealed under');
        return decrypt(legacyKey, sealed.slice(V1.length));
      }
      const rest = sealed.slice(V2.length);
      const separator = rest.indexOf(':');
      const id = rest.slice(0, separator);
      return decrypt(keyFor(id), rest.slice(separator + 1), Buffer.from(id));
    },
    isSealed: (value): value is string => typeof value === 'string' && (value.startsWith(V2) || value.startsWith(V1)),
    isStale: (sealed) => !sealed.startsWith(`${V2}${keyring.current().id}:`),
  };
}

function decrypt(key: Buffer, payload: string, aad?: Buffer): string {
  const raw = Buffer.from(payload, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  if (aad) decipher.setAAD(aad);
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
