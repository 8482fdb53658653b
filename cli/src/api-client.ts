// The CLI's only way to the control plane: the REST API under /api/v1, with fetch.
import { CliError } from './cli-error.js';

export class ApiError extends CliError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const TIMEOUT_MS = 30_000;

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly token?: string,
  ) {}

  async request<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const text = await this.send(method, path, 'application/json', body);
    return (text ? parseJson(text) : undefined) as T;
  }

  /** A body that is not JSON (a CSV export), as the server wrote it. */
  getText = (path: string, accept = 'text/csv') => this.send('GET', path, accept);

  private async send(method: string, path: string, accept: string, body?: unknown): Promise<string> {
    const headers: Record<string, string> = { accept };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}/api/v1${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new CliError(`cannot reach ${this.baseUrl}: ${(err as Error).cause ? String((err as Error).cause) : (err as Error).message}`);
    }
    const text = await res.text();
    if (!res.ok) {
      const parsed = text ? parseJson(text) : undefined;
      const reason = (parsed as { error?: unknown } | undefined)?.error;
      const details = (parsed as { details?: { path: string; message: string }[] } | undefined)?.details;
      const detail = details?.length ? ` (${details.map((d) => `${d.path}: ${d.message}`).join('; ')})` : '';
      throw new ApiError(res.status, `${method} ${path}: ${res.status} ${typeof reason === 'string' ? reason : res.statusText}${detail}`);
    }
    return text;
  }

  get = <T = any>(path: string) => this.request<T>('GET', path);
  post = <T = any>(path: string, body: unknown = {}) => this.request<T>('POST', path, body);
  put = <T = any>(path: string, body: unknown) => this.request<T>('PUT', path, body);
  del = <T = any>(path: string) => this.request<T>('DELETE', path);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
