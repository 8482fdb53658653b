// Runs `npm run admin -- ARGS` (control-plane/src/admin-cli.ts through tsx) as its own process.
// Asynchronous on purpose: the embedded test database, or the control plane a command asks, may
// be served by the test's own event loop.
import { spawn } from 'node:child_process';
import path from 'node:path';

export interface AdminRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `env` is the control plane's configuration (DATA_DIR, DATABASE_URL, ...); the test's DATABASE_URL is not inherited. */
export function runAdmin(env: Record<string, string | undefined>, ...args: string[]): Promise<AdminRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('control-plane/src/admin-cli.ts'), ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: undefined, ...env },
    timeout: 120_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}
