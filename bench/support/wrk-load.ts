// Load from wrk (C, epoll) when it is installed: on two shared cores a Node load generator takes
// a core's worth of CPU from the servers it measures, wrk a fraction of it. The same plan as
// http-load.ts (keep-alive connections, each sending its next request on the previous answer).
import { spawnSync } from 'node:child_process';
import type { LoadPlan, LoadResult } from './http-load.js';

export function wrkInstalled(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

/** Runs a GET `plan` with wrk; any answer outside 2xx and 3xx, or socket error, counts as an error. */
export function runWrk(plan: LoadPlan): LoadResult {
  if (plan.method !== 'GET') throw new Error('runWrk sends GET only');
  const args = ['-t', '2', '-c', String(plan.concurrency), '-d', `${plan.seconds}s`, ...Object.entries(plan.headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), plan.url];
  const run = spawnSync('wrk', args, { encoding: 'utf8', timeout: (plan.seconds + 30) * 1000 });
  if (run.status !== 0) throw new Error(`wrk failed (${run.status ?? run.signal}): ${run.stderr}`);
  const out = run.stdout;
  const done = /(\d+) requests in ([\d.]+)(ms|s|m)\b/.exec(out);
  if (!done) throw new Error(`wrk printed no total: ${out}`);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const sockets = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = sockets ? sockets.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  const errors = non2xx + socketErrors;
  return {
    requests: Number(done[1]),
    errors,
    seconds: Number(done[2]) * { ms: 0.001, s: 1, m: 60 }[done[3] as 'ms' | 's' | 'm'],
    latencies: [],
    firstError: errors > 0 ? `${non2xx} answers outside 2xx/3xx, ${socketErrors} socket errors` : undefined,
  };
}
