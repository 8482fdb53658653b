// The keys that encrypt secrets at rest (check passwords, channel keys), apart from the JWT
// secret so that either can be rotated alone. A keyring is a list of `id:key` entries (key:
// 32 random bytes, base64): the first seals, all of them open. It comes from
// DATA_ENCRYPTION_KEYS (comma-separated), or else from the file DATA_DIR/data-keys (one entry
// a line), which is generated on first start. Old keys stay until nothing sealed under them
// is left (see `npm run admin -- reseal-secrets`).
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface DataKey {
  id: string;
  key: Buffer;
}

export interface Keyring {
  /** The key new values are sealed with. */
  current(): DataKey;
  find(id: string): DataKey | undefined;
  /** Reads the keyring again when it comes from a file (another process rotated it); false otherwise. */
  reload(): boolean;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const KEY_BYTES = 32;
const KEYRING_FILE = 'data-keys';

export class KeyringError extends Error {}

/** Parses `id:base64key` entries; throws KeyringError naming what is wrong. */
export function parseKeyring(entries: string[]): DataKey[] {
  const keys = entries.map((entry, i) => {
    const separator = entry.indexOf(':');
    const id = entry.slice(0, separator);
    const key = Buffer.from(entry.slice(separator + 1), 'base64');
    if (separator < 0 || !KEY_ID.test(id)) throw new KeyringError(`entry ${i + 1} must be ID:KEY with an id of letters, digits, - or _`);
    if (key.length !== KEY_BYTES) throw new KeyringError(`the key "${id}" must be ${KEY_BYTES} bytes in base64 (openssl rand -base64 32)`);
    return { id, key };
  });
  if (keys.length === 0) throw new KeyringError('at least one key is needed');
  const ids = keys.map((k) => k.id);
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeated) throw new KeyringError(`the key id "${repeated}" appears twice`);
  return keys;
}

function formatKey(key: DataKey): string {
  return `${key.id}:${key.key.toString('base64')}`;
}

export function newDataKey(now = new Date()): DataKey {
  return { id: `k${now.toISOString().slice(0, 10).replaceAll('-', '')}${randomBytes(3).toString('hex')}`, key: randomBytes(KEY_BYTES) };
}

export function keyringFromKeys(keys: DataKey[], reload: () => DataKey[] | undefined = () => undefined): Keyring {
  let held = keys;
  return {
    current: () => held[0]!,
    find: (id) => held.find((k) => k.id === id),
    reload() {
      const fresh = reload();
      if (fresh) held = fresh;
      return fresh !== undefined;
    },
  };
}

/** The keyring of DATA_DIR, made with one new key when there is none yet. */
export function fileKeyring(dataDir: string): Keyring {
  const file = path.join(dataDir, KEYRING_FILE);
  return keyringFromKeys(readOrCreateKeyFile(file), () => readKeyFile(file));
}

/** Puts a new key first (it seals from now on) and keeps the others for opening. */
export function addKeyToFile(dataDir: string, key: DataKey): DataKey[] {
  const file = path.join(dataDir, KEYRING_FILE);
  const keys = [key, ...readOrCreateKeyFile(file)];
  writeKeyFile(file, keys);
  return keys;
}

/** DATA_DIR's data keys, made with one new key when there is none yet. */
export function keysInFile(dataDir: string): DataKey[] {
  return readOrCreateKeyFile(path.join(dataDir, KEYRING_FILE));
}

/** Puts `keys` first in DATA_DIR/data-keys (the first of them seals), keeping the other keys there after them. */
export function prependKeysToFile(dataDir: string, keys: DataKey[]): DataKey[] {
  const file = path.join(dataDir, KEYRING_FILE);
  const ids = new Set(keys.map((k) => k.id));
  const merged = [...keys, ...(readKeyFile(file) ?? []).filter((k) => !ids.has(k.id))];
  writeKeyFile(file, merged);
  return merged;
}

function readOrCreateKeyFile(file: string): DataKey[] {
  const existing = readKeyFile(file);
  if (existing) return existing;
  const keys = [newDataKey()];
  writeKeyFile(file, keys);
  return keys;
}

function readKeyFile(file: string): DataKey[] | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return parseKeyring(text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#')));
  } catch (err) {
    throw new KeyringError(`${file}: ${(err as Error).message}`);
  }
}

function writeKeyFile(file: string, keys: DataKey[]): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const text = `# Outpost data encryption keys: the first seals, every one opens. Back this file up apart from the database.\n${keys.map(formatKey).join('\n')}\n`;
  // Written aside and renamed, so a reader never sees half a file.
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, file);
}
