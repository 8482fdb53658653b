// Secrets inside an object field of a resource (a service's options): dotted paths such as
// `oauth2.client_secret`, the password of a proxy URL, and {{secrets.NAME}} references, which
// name an organization secret and hold none, so they are compared and exported as written.
import type { Entry } from './kinds.js';
import { proxyPassword } from '../../../shared/src/proxy-password.js';

/** What the API answers in place of a secret. */
export const MASK = '********';

export const ORG_SECRET_REFERENCE = /^\{\{\s*secrets\.[A-Za-z_][A-Za-z0-9_]{0,63}\s*\}\}$/;
export const isOrgSecretReference = (value: unknown): boolean => typeof value === 'string' && ORG_SECRET_REFERENCE.test(value);

export function readPath(holder: Entry | undefined, path: string): unknown {
  let value: unknown = holder;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Entry)[key];
  }
  return value;
}

/** A copy of `holder` with `value` at `path`; the objects on the way are copied, the rest shared. */
export function withPath(holder: Entry, path: string, value: unknown): Entry {
  const [key, ...rest] = path.split('.') as [string, ...string[]];
  if (rest.length === 0) return { ...holder, [key]: value };
  return { ...holder, [key]: withPath((holder[key] ?? {}) as Entry, rest.join('.'), value) };
}

/** A proxy URL as the API answers it: a password that is not a reference masked. */
export function maskedProxy(url: string): string {
  const parts = proxyPassword(url);
  return parts && !isOrgSecretReference(parts.password) ? parts.with(MASK) : url;
}
