// Seals a value as the first format did (enc:v1, AES-256-GCM under a key derived from the JWT
// secret), for tests of what earlier versions left in the database.
import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';

export function sealedLikeV1(plain: string, jwtSecret: string): string {
  const key = Buffer.from(hkdfSync('sha256', jwtSecret, 'outpost', 'check-option-secrets', 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `enc:v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}
