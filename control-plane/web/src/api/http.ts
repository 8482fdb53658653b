// The one way the dashboard talks to the REST API: same origin, bearer token, JSON both ways.
// Every failure becomes an ApiError carrying the API's message and field details.
import { tokenStore } from '../session/token-store';
import { ApiError, type FieldProblem } from './api-error';

export { ApiError, type FieldProblem };

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface ApiResponse<T> {
  body: T;
  headers: Headers;
}

function withQuery(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * A file the API answers (a backup, a CSV export): its bytes and the name it suggests;
 * failures as apiRequest's. A body makes it a POST, else a GET; `filename` when none is suggested.
 */
export async function apiDownload(path: string, request: { body?: unknown; query?: Query; filename: string }): Promise<{ blob: Blob; filename: string }> {
  const token = tokenStore.current()?.token;
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  let response: Response;
  try {
    response = await fetch(
      `/api/v1${withQuery(path, request.query)}`,
      request.body === undefined
        ? { headers: auth }
        : { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(request.body) },
    );
  } catch {
    throw new ApiError(0, 'The server cannot be reached. Check your connection and try again.');
  }
  if (!response.ok) {
    const error = (await response.json().catch(() => null)) as { error?: string } | null;
    if (response.status === 401 && token) tokenStore.expire('Your session has ended. Sign in again.');
    throw new ApiError(response.status, typeof error?.error === 'string' ? error.error : `The server answered ${response.status}.`);
  }
  const filename = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? request.filename;
  return { blob: await response.blob(), filename };
}

interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** null: send no token; undefined: the signed-in person's. */
  token?: string | null;
  /** A 401 answers for this request only (a public page's password), not for the session. */
  keepSession?: boolean;
}

export async function apiRequest<T>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const token = options.token === undefined ? tokenStore.current()?.token : options.token;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`/api/v1${withQuery(path, options.query)}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
  } catch {
    throw new ApiError(0, 'The server cannot be reached. Check your connection and try again.');
  }
  const text = await response.text();
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  if (!response.ok) {
    const error = body as { error?: string; details?: FieldProblem[]; code?: string } | null;
    const message = typeof error?.error === 'string' ? error.error : `The server answered ${response.status}.`;
    if (response.status === 401 && token && !options.keepSession) tokenStore.expire('Your session has ended. Sign in again.');
    throw new ApiError(response.status, message, Array.isArray(error?.details) ? error.details : [], typeof error?.code === 'string' ? error.code : undefined);
  }
  return { body: body as T, headers: response.headers };
}

export const api = {
  get: async <T>(path: string, query?: Query) => (await apiRequest<T>('GET', path, { query })).body,
  post: async <T>(path: string, body?: unknown) => (await apiRequest<T>('POST', path, { body: body ?? {} })).body,
  put: async <T>(path: string, body: unknown) => (await apiRequest<T>('PUT', path, { body })).body,
  del: async (path: string) => {
    await apiRequest<unknown>('DELETE', path);
  },
};
