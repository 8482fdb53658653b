// A load generator of its own process, so its CPU is not the server's: `concurrency` keep-alive
// connections, each sending its next request as soon as the previous answer arrives, for
// `seconds`. Started by `runLoad`, which hands it the plan on argv and reads one JSON line back.
import { fork } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

export interface LoadPlan {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** A JSON body; every "{n}" in it becomes the request's sequence number (unique names). */
  body?: string;
  concurrency: number;
  seconds: number;
  maxRequests?: number;
  /** The status every answer must have; any other counts as an error. */
  expectStatus: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  /** Latencies in ms, sorted ascending. */
  latencies: number[];
  firstError?: string;
}

/** Runs `plan` from a child process and resolves with what it measured. */
export function runLoad(plan: LoadPlan): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [JSON.stringify(plan)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load generator exited with ${code}`))));
  });
}

async function generate(plan: LoadPlan): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: plan.concurrency });
  const url = new URL(plan.url);
  const latencies: number[] = [];
  let sequence = 0;
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const deadline = started + plan.seconds * 1000;

  const once = () =>
    new Promise<void>((resolve) => {
      const body = plan.body?.replaceAll('{n}', String(sequence));
      sequence += 1;
      const t0 = performance.now();
      const req = http.request(
        { agent, host: url.hostname, port: url.port, path: url.pathname + url.search, method: plan.method, headers: { ...plan.headers, ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            latencies.push(performance.now() - t0);
            if (res.statusCode !== plan.expectStatus) {
              errors += 1;
              firstError ??= `${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 200)}`;
            }
            resolve();
          });
        },
      );
      req.on('error', (err) => {
        errors += 1;
        firstError ??= err.message;
        resolve();
      });
      req.end(body);
    });

  await Promise.all(
    Array.from({ length: plan.concurrency }, async () => {
      while (performance.now() < deadline && sequence < (plan.maxRequests ?? Infinity)) await once();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { requests: latencies.length, errors, seconds, latencies: latencies.sort((a, b) => a - b), firstError };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await generate(JSON.parse(process.argv[2]!) as LoadPlan);
  process.stdout.write(JSON.stringify(result));
  process.disconnect?.();
}
