// `{{secrets.NAME}}` in a service's options: where they are, and the options with each one
// replaced by a value. Any string of the options may hold them (step URLs, headers, bodies,
// tokens...), so the whole JSON is walked; keys are never references.

export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Anything written as a secret reference, well-formed or not (a bad name is reported, not left for the agent). */
const REFERENCE = /\{\{\s*secrets\.([^}]*?)\s*\}\}/g;
const EXACT_REFERENCE = /^\{\{\s*secrets\.[A-Za-z_][A-Za-z0-9_]{0,63}\s*\}\}$/;

export interface SecretReference {
  /** Where it is, as API errors name fields: `options.steps.1.headers.Authorization`. */
  path: string;
  name: string;
}

/** A value that is one reference and nothing else: it names a secret but holds none. */
export const isExactReference = (value: unknown): boolean => typeof value === 'string' && EXACT_REFERENCE.test(value);

/** Every reference in `value`, depth first, `path` being where `value` is. */
export function findReferences(value: unknown, path = 'options'): SecretReference[] {
  const found: SecretReference[] = [];
  walk(value, path, (text, at) => {
    for (const [, name] of text.matchAll(REFERENCE)) found.push({ path: at, name: name! });
  });
  return found;
}

/**
 * A copy of `options` with each reference replaced by `valueOf(name)`, or `options` itself when
 * it has none. In `proxy` the value is percent-encoded: it lands in a URL's user information.
 */
export function replaceReferences(options: Record<string, unknown>, valueOf: (name: string) => string): Record<string, unknown> {
  if (findReferences(options).length === 0) return options;
  const replace = (value: unknown, encode: boolean): unknown => {
    if (typeof value === 'string') {
      return value.includes('{{') ? value.replace(REFERENCE, (_, name: string) => (encode ? encodeURIComponent(valueOf(name)) : valueOf(name))) : value;
    }
    if (Array.isArray(value)) return value.map((item) => replace(item, encode));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replace(v, encode)]));
    return value;
  };
  return Object.fromEntries(Object.entries(options).map(([key, value]) => [key, replace(value, key === 'proxy')]));
}

function walk(value: unknown, path: string, visit: (text: string, path: string) => void): void {
  if (typeof value === 'string') {
    if (value.includes('{{')) visit(value, path);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => walk(item, `${path}.${i}`, visit));
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) walk(item, `${path}.${key}`, visit);
  }
}
