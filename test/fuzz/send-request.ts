// Sends fuzz cases with node:http, which puts bytes and headers on the wire as given (fetch
// would re-encode the body and refuse some headers), and judges each answer against the
// error contract of API.md: never a 5xx, and every error is JSON {"error": "<sentence>"}.
import http from 'node:http';
import net from 'node:net';
import type { FuzzRequest } from './fuzz-request.js';

export interface FuzzResponse {
  status: number;
  contentType: string;
  text: string;
}

export interface Problem {
  kind: '5xx' | 'non-JSON error' | 'no answer';
  message: string;
}

/** Far above any sane answer, under mocha's per-test timeout. */
const REQUEST_TIMEOUT_MS = 15_000;

export class FuzzSender {
  private readonly agent: http.Agent;
  private readonly url: URL;

  constructor(baseUrl: string, private readonly token: string, connections = 4) {
    this.url = new URL(baseUrl);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  }

  send(r: FuzzRequest): Promise<FuzzResponse> {
    const headers: Record<string, string | number> = { ...r.headers };
    if (r.auth) headers.authorization = `Bearer ${this.token}`;
    if (r.raw) return this.sendRaw(r, headers);
    if (r.body !== undefined) headers['content-length'] = Buffer.byteLength(r.body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: this.url.hostname, port: this.url.port, method: r.method, path: `/api/v1${r.path}`, headers, agent: this.agent, timeout: REQUEST_TIMEOUT_MS },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? '', text: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      req.on('error', reject);
      req.end(r.body);
    });
  }

  /** Writes the request line and headers as given (latin1: one byte a character) and reads until the server closes. */
  private sendRaw(r: FuzzRequest, headers: Record<string, string | number>): Promise<FuzzResponse> {
    const framed = 'content-length' in headers || 'transfer-encoding' in headers;
    if (r.body !== undefined && !framed) headers['content-length'] = Buffer.byteLength(r.body);
    const head = [`${r.method} /api/v1${r.path} HTTP/1.1`, `host: ${this.url.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), 'connection: close'];
    const bytes = Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), Buffer.from(r.body ?? '')]);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(this.url.port), this.url.hostname);
      const chunks: Buffer[] = [];
      socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', reject);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('latin1');
        const end = text.indexOf('\r\n\r\n');
        const status = /^HTTP\/1\.[01] (\d{3})/.exec(text);
        if (!status || end < 0) return reject(new Error(`not an HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
        const contentType = /^content-type:[ \t]*(.*?)\r$/im.exec(text.slice(0, end + 2))?.[1] ?? '';
        resolve({ status: Number(status[1]), contentType, text: Buffer.from(text.slice(end + 4), 'latin1').toString() });
      });
      socket.write(bytes);
    });
  }

  /** The answer's breach of the contract, if any; a request with no answer is one too. */
  async check(r: FuzzRequest): Promise<{ response?: FuzzResponse; problem?: Problem }> {
    try {
      const response = await this.send(r);
      return { response, problem: responseProblem(response) };
    } catch (err) {
      return { problem: { kind: 'no answer', message: err instanceof Error ? err.message : String(err) } };
    }
  }

  close(): void {
    this.agent.destroy();
  }
}

export function responseProblem(r: FuzzResponse): Problem | undefined {
  const answer = `${r.status} ${r.contentType || '(no Content-Type)'} ${r.text.slice(0, 300)}`;
  if (r.status >= 500) return { kind: '5xx', message: answer };
  if (r.status < 300) return undefined;
  if (!/^application\/json\b/i.test(r.contentType)) return { kind: 'non-JSON error', message: answer };
  let body: unknown;
  try {
    body = JSON.parse(r.text);
  } catch {
    return { kind: 'non-JSON error', message: answer };
  }
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error !== 'string' || error.trim() === '') return { kind: 'non-JSON error', message: `no "error" sentence: ${answer}` };
  return undefined;
}
