// Where the CLI finds its server and credential: flags, then the environment, then the
// file `outpost login` writes. The environment is parsed once, here.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { CliError, UsageError } from './cli-error.js';

const CliEnv = z.object({
  OUTPOST_URL: z.string().min(1).optional(),
  OUTPOST_API_KEY: z.string().min(1).optional(),
  XDG_CONFIG_HOME: z.string().min(1).optional(),
  HOME: z.string().min(1).optional(),
});
export type CliEnv = z.infer<typeof CliEnv>;

export function parseCliEnv(env: Record<string, string | undefined>): CliEnv {
  return Object.freeze(CliEnv.parse(env));
}

const StoredLogin = z.object({ url: z.string(), token: z.string(), email: z.string().optional() });
export type StoredLogin = z.infer<typeof StoredLogin>;

export function loginFilePath(env: CliEnv): string {
  const base = env.XDG_CONFIG_HOME ?? path.join(env.HOME ?? os.homedir(), '.config');
  return path.join(base, 'outpost', 'login.json');
}

export function readStoredLogin(env: CliEnv): StoredLogin | undefined {
  const file = loginFilePath(env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const parsed = StoredLogin.safeParse(safeJson(text));
  if (!parsed.success) throw new CliError(`${file} is not a login the CLI wrote; run outpost login again`);
  return parsed.data;
}

/** The token is a credential: the folder and the file are readable by their owner only. */
export function storeLogin(env: CliEnv, login: StoredLogin): string {
  const file = loginFilePath(env);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

export interface Connection {
  url: string;
  token: string;
}

export function serverUrl(flagUrl: string | undefined, env: CliEnv): string {
  const url = flagUrl ?? env.OUTPOST_URL ?? readStoredLogin(env)?.url;
  if (!url) throw new UsageError('no server: pass --url or set OUTPOST_URL');
  if (!/^https?:\/\/[^/]+/.test(url)) throw new UsageError(`the server must be an http(s) URL, not "${url}"`);
  return url.replace(/\/+$/, '');
}

/** An API key from the environment wins over the stored login, so scripts need no login. */
export function connection(flagUrl: string | undefined, env: CliEnv): Connection {
  const url = serverUrl(flagUrl, env);
  const token = env.OUTPOST_API_KEY ?? readStoredLogin(env)?.token;
  if (!token) throw new UsageError('not logged in: run outpost login, or set OUTPOST_API_KEY');
  return { url, token };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
