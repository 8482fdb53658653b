// A small HTTP client for route tests: never throws on a status, parses JSON when it can, and
// fails loudly when an answer does not match the OpenAPI document.
import { randomBytes } from 'node:crypto';
import { assertAnswerMatchesContract } from './openapi-contract.js';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

export interface RequestOptions {
  token?: string;
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
}

export interface TestUser {
  email: string;
  password: string;
  token: string;
  userId: string;
  orgId: string;
}

export class ApiClient {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Reply<T>> {
    const headers = new Headers(options.headers);
    if (options.token) headers.set('authorization', `Bearer ${options.token}`);
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    const res = await fetch(`${this.baseUrl}/api/v1${path}`, { method, headers, body, signal: AbortSignal.timeout(15_000) });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    // Every answer a test receives is checked against the OpenAPI document.
    assertAnswerMatchesContract(method, path, res.status, res.headers.get('content-type'), text);
    return { status: res.status, headers: res.headers, text, body: parsed as T };
  }

  get = (path: string, token?: string) => this.request('GET', path, { token });
  post = (path: string, json: unknown, token?: string) => this.request('POST', path, { json, token });
  put = (path: string, json: unknown, token?: string) => this.request('PUT', path, { json, token });
  del = (path: string, token?: string) => this.request('DELETE', path, { token });

  /** Registers and logs in a fresh user with its own free-plan organization. */
  async newUser(label = 'user'): Promise<TestUser> {
    const email = `${label}-${randomBytes(6).toString('hex')}@example.com`;
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const reg = await this.post('/auth/register', { email, password, full_name: `Test ${label}` });
    if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${reg.text}`);
    const login = await this.post('/auth/login', { email, password });
    if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
    return { email, password, token: login.body.token, userId: login.body.user_id, orgId: login.body.org_id };
  }

  /** A credential acting in `owner`'s organization with `role`: an API key the owner creates. */
  async keyWithRole(owner: TestUser, role: 'owner' | 'admin' | 'member' | 'viewer'): Promise<string> {
    const created = await this.post('/api-keys', { name: `as ${role}`, role }, owner.token);
    if (created.status !== 201) throw new Error(`api key creation failed: ${created.status} ${created.text}`);
    return created.body.key;
  }
}
