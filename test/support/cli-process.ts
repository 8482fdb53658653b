// Runs the `outpost` CLI as its own process (TypeScript through tsx). Asynchronous: the
// control plane it talks to runs in the test's own event loop.
import { spawn } from 'node:child_process';
import path from 'node:path';

export interface CliRun {
  code: number | string;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string | undefined>, stdin?: string): Promise<CliRun> {
  const main = path.resolve('cli/src/main.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', main, ...args], {
    // Only what the test gives: no OUTPOST_* of the developer's shell leaks in.
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(stdin ?? '');
  return new Promise((resolve) => child.once('close', (code, signal) => resolve({ code: code ?? signal ?? -1, stdout, stderr })));
}
