// Secrets inside an object field of a resource (a service's options): dotted paths such as
// `oauth2.client_secret`, the password of a proxy URL, and {{secrets.NAME}} references, which
// name an organization secret and hold none, so they are compared and exported as written.
import type { Entry } from './kinds.js';

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

/** `http://user:pass@host:port`: the password, and the URL with another one in its place. */
export function proxyPassword(url: string): { password: string; with(password: string): string } | null {
  const match = /^(https?:\/\/)([^/?#]*)(.*)$/i.exec(url);
  if (!match) return null;
  const [, scheme, authority, rest] = match as unknown as [string, string, string, string];
  // The last @ ends the user information; its first colon starts the password.
  const at = authority.lastIndexOf('@');
  const colon = authority.indexOf(':');
  if (at < 0 || colon < 0 || colon > at || colon === at - 1) return null;
  return { password: authority.slice(colon + 1, at), with: (password) => `${scheme}${authority.slice(0, colon + 1)}${password}${authority.slice(at)}${rest}` };
}

/** A proxy URL as the API answers it: a password that is not a reference masked. */
export function maskedProxy(url: string): string {
  const parts = proxyPassword(url);
  return parts && !isOrgSecretReference(parts.password) ? parts.with(MASK) : url;
}
