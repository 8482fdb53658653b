// Secrets the control plane needs on every start: the JWT signing secret and the platform
// agent token. When not configured they are generated once and kept in DATA_DIR, so
// tokens and agents keep working across restarts.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface Secrets {
  jwtSecret: string;
  agentToken: string;
}

export function resolveSecrets(dataDir: string, configured: Partial<Secrets>): Secrets {
  return {
    jwtSecret: configured.jwtSecret ?? keptSecret(dataDir, 'jwt-secret'),
    agentToken: configured.agentToken ?? keptSecret(dataDir, 'agent-token'),
  };
}

function keptSecret(dataDir: string, name: string): string {
  const file = path.join(dataDir, name);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept.length >= 32) return kept;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
