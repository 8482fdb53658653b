// Runs the real control plane (main.ts through tsx) as its own process, so a test can
// SIGKILL it: an in-process control plane cannot die without taking the test with it.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { poll } from './poll.js';

export interface ControlPlaneProcess {
  child: ChildProcess;
  baseUrl: string;
  output(): string;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
  /** Resolves once /api/v1/ready answers 200, or throws with the process's output. */
  ready(timeoutMs?: number): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<number | string>;
}

/** `env` is the control plane's configuration (PORT, GRPC_PORT, DATABASE_URL, ...). */
export function startControlPlaneProcess(env: Record<string, string>): ControlPlaneProcess {
  const main = path.resolve('control-plane/src/main.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', main], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const baseUrl = `http://${env.HOST ?? '127.0.0.1'}:${env.PORT}`;
  return {
    child,
    baseUrl,
    output: () => output,
    exited,
    async ready(timeoutMs = 60_000) {
      const isReady = async () => (await fetch(`${baseUrl}/api/v1/ready`, { signal: AbortSignal.timeout(5_000) })).status === 200;
      const died = exited.then((code) => {
        throw new Error(`the control plane exited (${code}) before it was ready:\n${output.slice(-2000)}`);
      });
      const ready = poll(isReady, { what: `the control plane at ${baseUrl} ready`, timeoutMs, intervalMs: 100 }).catch((err) => {
        throw new Error(`${(err as Error).message}\n${output.slice(-2000)}`);
      });
      await Promise.race([ready, died]);
    },
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
