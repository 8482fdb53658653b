// DOCKER: one `GET /containers/{name}/json` on the Docker Engine API's unix socket (Podman's
// compatible socket answers it too), judged by the container's state and health check.
//
// The request is written to the socket and the answer read by the HTTP prober's own parser
// (http-response-parser.ts), as http-request.ts does and for the same reason: one exchange on a
// connection closed after it. Against Podman this cost half the CPU per check of node:http with
// socketPath, and a third of undici's. dockerode would add a dependency for one GET.
import net from 'node:net';
import { assertsOn } from '../../../shared/src/assertion-catalogue.js';
import { endpointProblem } from '../../../shared/src/endpoints.js';
import { ResponseParser } from './http-response-parser.js';
import { describeNetworkError } from './network-errors.js';
import type { ProbeSignal } from './probe-signal.js';
import type { Observed, ProbeDetails, Prober, ProbeResult } from './prober.js';

const DEFAULT_SOCKET = '/var/run/docker.sock';
/** An inspect answer is a few kB; a large environment or many mounts stay far below this. */
const MAX_BODY_BYTES = 1024 * 1024;
/** Of a failing health check's output, the message keeps this much. */
const MAX_OUTPUT_CHARS = 120;
/** The states whose exit code is news ("container web is exited (exit code 137)"). */
const EXIT_CODE_STATES = new Set(['exited', 'dead', 'restarting']);

/** The part of the inspect answer the check reads. */
interface ContainerInspect {
  State?: {
    Status?: string;
    ExitCode?: number;
    StartedAt?: string;
    Health?: { Status?: string; Log?: { ExitCode?: number; Output?: string }[] | null };
  };
  Config?: { Image?: string };
  RestartCount?: number;
}

interface ApiAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** What answered on the socket is not the Docker Engine API. */
class NotDockerApi extends Error {}

export function dockerProber(): Prober<'DOCKER'> {
  return {
    family: 'DOCKER',
    prepare: (target) => {
      const name = target.endpoint;
      const problem = endpointProblem('container', name);
      if (problem) return () => Promise.resolve({ ok: false, responseTimeMs: 0, message: `bad endpoint ${name}: ${problem}`, details: {} });
      const socket = target.options.socket ?? DEFAULT_SOCKET;
      // The name fits Docker's own rule (letters, digits, _ . -): it goes into the path as it is.
      const request = Buffer.from(`GET /containers/${name}/json HTTP/1.1\r\nHost: docker\r\nConnection: close\r\n\r\n`, 'latin1');
      const socketFailures = socketFailureMessages(socket);
      const o = target.options;
      const judgedByAssertions = assertsOn(o.assertions, 'state') || assertsOn(o.assertions, 'health');
      return async (signal) => {
        const started = performance.now();
        try {
          const answer = await exchange(socket, request, signal);
          return verdict(name, socket, answer, performance.now() - started, judgedByAssertions);
        } catch (err) {
          const message = signal.aborted ? `timed out after ${target.timeoutMs} ms` : describeFailure(err, socket, socketFailures);
          return { ok: false, responseTimeMs: Math.round(performance.now() - started), message, details: {} };
        }
      };
    },
  };
}

/** The messages of the socket errors that say what to do, made once per target. */
function socketFailureMessages(socket: string): Record<string, string> {
  return {
    ENOENT: `no Docker socket at ${socket}: is Docker or Podman running? (options.socket)`,
    EACCES: `permission denied on ${socket}: the agent's user needs the docker group`,
    // The socket file outlived its daemon.
    ECONNREFUSED: `nothing listens on ${socket}: is Docker or Podman running?`,
  };
}

function describeFailure(err: unknown, socket: string, socketFailures: Record<string, string>): string {
  if (err instanceof NotDockerApi) return `not a Docker API at ${socket} (${err.message})`;
  const code = (err as { code?: unknown }).code;
  return (typeof code === 'string' && socketFailures[code]) || describeNetworkError(err);
}

/** Sends the request and reads the whole answer; the connection is closed on every path, the abort included. */
function exchange(socket: string, request: Buffer, signal: ProbeSignal): Promise<ApiAnswer> {
  const connection = net.connect({ path: socket });
  const onAbort = () => connection.destroy(new Error('aborted'));
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const parser = new ResponseParser({ headRequest: false, maxBodyBytes: MAX_BODY_BYTES });
  const answered = new Promise<ApiAnswer>((resolve, reject) => {
    const finish = () => resolve({ status: parser.head!.status, headers: parser.head!.headers, body: parser.body() });
    connection.on('data', (chunk: Buffer) => {
      try {
        if (parser.write(chunk)) finish();
      } catch (err) {
        reject(new NotDockerApi(describeNetworkError(err)));
      }
    });
    connection.once('end', () => {
      try {
        parser.end();
        finish();
      } catch (err) {
        reject(new NotDockerApi((err as Error).message));
      }
    });
    connection.once('error', reject);
  });
  // Queued until the connection is up.
  connection.write(request);
  return answered.finally(() => {
    signal.removeEventListener('abort', onAbort);
    connection.destroy();
  });
}

function verdict(name: string, socket: string, answer: ApiAnswer, elapsedMs: number, judgedByAssertions: boolean): ProbeResult {
  const inspectMs = Math.round(elapsedMs * 10) / 10;
  const responseTimeMs = Math.round(elapsedMs);
  const failed = (message: string): ProbeResult => ({ ok: false, responseTimeMs, message, details: { inspect_ms: inspectMs } });
  // The Engine (and Podman) name their API version on every answer; another HTTP server on the socket does not.
  if (answer.headers['api-version'] === undefined) return failed(`not a Docker API at ${socket} (HTTP ${answer.status} without an Api-Version header)`);
  if (answer.status === 404) return failed(`no container named ${name}`);
  if (answer.status !== 200) return failed(`Docker API error ${answer.status}: ${errorMessage(answer.body)}`);
  const inspect = parseInspect(answer.body);
  const state = inspect?.State?.Status;
  if (!inspect || typeof state !== 'string') return failed(`not a Docker API at ${socket} (the answer has no container state)`);
  const health = healthOf(inspect);
  const observed: Observed = { state, health };
  if (typeof inspect.RestartCount === 'number') observed.restart_count = inspect.RestartCount;
  const details = facts(inspect, inspectMs);
  const description = describeContainer(name, state, health, inspect.State?.ExitCode);
  if (judgedByAssertions) return { ok: true, responseTimeMs, message: `${description} in ${responseTimeMs} ms`, details, observed };
  if (state !== 'running') return { ok: false, responseTimeMs, message: description, details, observed };
  if (health === 'unhealthy') return { ok: false, responseTimeMs, message: unhealthyMessage(name, inspect), details, observed };
  const result: ProbeResult = { ok: true, responseTimeMs, message: `${description} in ${responseTimeMs} ms`, details, observed };
  if (health === 'starting') result.degraded = true;
  return result;
}

function parseInspect(body: Buffer): ContainerInspect | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as ContainerInspect) : undefined;
  } catch {
    return undefined;
  }
}

/** Docker leaves Health out without a health check, Podman sends an empty status: both are "none". */
function healthOf(inspect: ContainerInspect): string {
  const status = inspect.State?.Health?.Status;
  return typeof status === 'string' && status !== '' ? status : 'none';
}

/** "container web is running (healthy)", "container web is exited (exit code 137)". */
function describeContainer(name: string, state: string, health: string, exitCode: number | undefined): string {
  if (EXIT_CODE_STATES.has(state) && typeof exitCode === 'number') return `container ${name} is ${state} (exit code ${exitCode})`;
  if (state !== 'running' || health === 'none') return `container ${name} is ${state}`;
  return `container ${name} is running (${health === 'starting' ? 'health check starting' : health})`;
}

/** What the last health check printed, on one line and cut; its exit code when it printed nothing. */
function unhealthyMessage(name: string, inspect: ContainerInspect): string {
  const last = inspect.State?.Health?.Log?.at(-1);
  const output = (last?.Output ?? '').trim().replace(/\s+/g, ' ');
  if (output !== '') return `container ${name} is unhealthy: ${output.length > MAX_OUTPUT_CHARS ? `${output.slice(0, MAX_OUTPUT_CHARS)}…` : output}`;
  return typeof last?.ExitCode === 'number' ? `container ${name} is unhealthy (health check exit code ${last.ExitCode})` : `container ${name} is unhealthy`;
}

function facts(inspect: ContainerInspect, inspectMs: number): ProbeDetails {
  const details: ProbeDetails = { inspect_ms: inspectMs };
  if (typeof inspect.Config?.Image === 'string') details.image = inspect.Config.Image;
  if (typeof inspect.State?.StartedAt === 'string') details.started_at = inspect.State.StartedAt;
  if (typeof inspect.State?.ExitCode === 'number') details.exit_code = inspect.State.ExitCode;
  if (typeof inspect.RestartCount === 'number') details.restart_count = inspect.RestartCount;
  return details;
}

/** The API's error answer is {"message": "..."}; anything else is shown as text, cut. */
function errorMessage(body: Buffer): string {
  const text = body.toString('utf8');
  try {
    const message = (JSON.parse(text) as { message?: unknown }).message;
    if (typeof message === 'string') return message.slice(0, MAX_OUTPUT_CHARS);
  } catch {
    // Not JSON: the text itself.
  }
  return text.trim().slice(0, MAX_OUTPUT_CHARS);
}
