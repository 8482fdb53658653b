// The keys a backup may carry (`--include-keys`): the data keys that open its stored secrets,
// the JWT secret and the platform agent token, sealed with a passphrase: scrypt derives the
// key, AES-256-GCM seals and authenticates, so a wrong passphrase is told from a damaged archive
// only in that both refuse to open.
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { z } from 'zod';
import type { DataKey } from '../../crypto/keyring.js';
import { parseKeyring } from '../../crypto/keyring.js';
import type { SealedKeys } from './archive-format.js';

export interface BackupKeys {
  dataKeys: DataKey[];
  jwtSecret: string;
  agentToken: string;
}

/** scrypt's cost: 2^15 rounds of 8 blocks, about 0.1 s and 32 MB, OWASP's minimum for scrypt. */
const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const MAX_MEMORY = 64 * 1024 * 1024;
export const MIN_PASSPHRASE_LENGTH = 12;

const KeysDocument = z.object({ data_keys: z.array(z.string()).min(1), jwt_secret: z.string().min(1), agent_token: z.string().min(1) });

export class KeysError extends Error {}

const derive = (passphrase: string, salt: Buffer, cost: { N: number; r: number; p: number }) => scryptSync(passphrase.normalize('NFC'), salt, 32, { ...cost, maxmem: MAX_MEMORY });

export function sealKeys(keys: BackupKeys, passphrase: string): SealedKeys {
  if (passphrase.length < MIN_PASSPHRASE_LENGTH) throw new KeysError(`the passphrase must be at least ${MIN_PASSPHRASE_LENGTH} characters`);
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', derive(passphrase, salt, COST), iv);
  const document = { data_keys: keys.dataKeys.map((k) => `${k.id}:${k.key.toString('base64')}`), jwt_secret: keys.jwtSecret, agent_token: keys.agentToken };
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(document), 'utf8'), cipher.final()]);
  return { kdf: 'scrypt', ...COST, salt: salt.toString('base64'), iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ciphertext: ciphertext.toString('base64') };
}

export function openKeys(sealed: SealedKeys, passphrase: string): BackupKeys {
  // An archive is input: its cost parameters must not make this process spend minutes or gigabytes.
  if (sealed.N > 2 ** 20 || sealed.r > 16 || sealed.p > 4) throw new KeysError('the keys are sealed with a cost this version refuses');
  let text: string;
  try {
    const decipher = createDecipheriv('aes-256-gcm', derive(passphrase, Buffer.from(sealed.salt, 'base64'), sealed), Buffer.from(sealed.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    text = Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new KeysError('the passphrase does not open the keys of this backup');
  }
  const document = KeysDocument.parse(JSON.parse(text));
  return { dataKeys: parseKeyring(document.data_keys), jwtSecret: document.jwt_secret, agentToken: document.agent_token };
}
