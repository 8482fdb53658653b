// Runs the real agent CLI as its own process (TypeScript through tsx), for end-to-end tests.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export interface AgentProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): Promise<number | string>;
}

export function startAgentProcess(args: { server: string; token: string; location: string; dataDir: string; extra?: string[] }): AgentProcess {
  const cli = path.resolve('agent/src/cli.ts');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', cli, 'run', '--server', args.server, '--token', args.token, '--location', args.location, '--data-dir', args.dataDir, ...(args.extra ?? [])],
    { env: { ...process.env, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'info' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return {
    child,
    output: () => output,
    exited,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
