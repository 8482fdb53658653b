// Secrets the control plane needs on every start: the JWT signing secret, the platform agent
// token and the data keyring (crypto/keyring.ts). When not configured they are generated
// once and kept in DATA_DIR, so tokens, agents and stored secrets keep working across
// restarts. They are separate so that each can be rotated alone.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileKeyring, keyringFromKeys, type DataKey, type Keyring } from './crypto/keyring.js';

export interface Secrets {
  jwtSecret: string;
  agentToken: string;
  dataKeys: Keyring;
}

export interface ConfiguredSecrets {
  jwtSecret?: string;
  agentToken?: string;
  dataKeys?: DataKey[];
}

const JWT_SECRET_FILE = 'jwt-secret';

export function resolveSecrets(dataDir: string, configured: ConfiguredSecrets): Secrets {
  return {
    jwtSecret: configured.jwtSecret ?? keptSecret(dataDir, JWT_SECRET_FILE),
    agentToken: configured.agentToken ?? keptSecret(dataDir, 'agent-token'),
    dataKeys: configured.dataKeys ? keyringFromKeys(configured.dataKeys) : fileKeyring(dataDir),
  };
}

/** Replaces DATA_DIR's JWT secret: every token signed with the old one is refused after a restart. */
export function replaceKeptJwtSecret(dataDir: string): void {
  writeSecret(path.join(dataDir, JWT_SECRET_FILE), newSecret());
}

/** Puts a restored backup's JWT secret and agent token in DATA_DIR, replacing those there. */
export function replaceKeptSecrets(dataDir: string, secrets: { jwtSecret: string; agentToken: string }): void {
  writeSecret(path.join(dataDir, JWT_SECRET_FILE), secrets.jwtSecret);
  writeSecret(path.join(dataDir, 'agent-token'), secrets.agentToken);
}

function keptSecret(dataDir: string, name: string): string {
  const file = path.join(dataDir, name);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept.length >= 32) return kept;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secret = newSecret();
  writeSecret(file, secret);
  return secret;
}

const newSecret = () => randomBytes(32).toString('base64url');

function writeSecret(file: string, secret: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${secret}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}
