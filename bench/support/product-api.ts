// The few API calls the benchmarks make against a product started in a process of its own:
// plain fetch, failing loudly on any unexpected status.
import { randomBytes } from 'node:crypto';

export interface Owner {
  token: string;
  orgId: string;
}

export async function call<T = any>(baseUrl: string, method: string, path: string, token?: string, json?: unknown, expect = method === 'POST' ? 201 : 200): Promise<T> {
  const res = await fetch(`${baseUrl}/api/v1${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Registers a user (with an organization of its own) and logs in. */
export async function registerOwner(baseUrl: string, label: string): Promise<Owner> {
  const email = `${label}-${randomBytes(6).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  await call(baseUrl, 'POST', '/auth/register', undefined, { email, password, full_name: label });
  const login = await call<{ token: string; org_id: string }>(baseUrl, 'POST', '/auth/login', undefined, { email, password }, 200);
  return { token: login.token, orgId: login.org_id };
}

/** Runs `task` for 0..count-1 with at most `parallel` in flight. */
export async function inParallel(count: number, parallel: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}
