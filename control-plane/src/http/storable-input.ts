// Refuses, for every route at once, request input that no field can hold: text PostgreSQL
// cannot store (U+0000, or UTF-16 halves without their pair, which no UTF-8 encoding has)
// and JSON nested deeper than any resource is. Checked on the path, the query and the body,
// before any route sees them, so no value of this kind reaches a schema or a statement.
import type { Context, Next } from 'koa';
import { isStorableText } from '../../../shared/src/storable-text.js';
import { validationFailed } from '../errors.js';

/** Deeper than any resource of the API (an alert rule's condition is the deepest, at 3). */
const MAX_JSON_DEPTH = 16;

export async function storableInput(ctx: Context, next: Next): Promise<void> {
  assertStorableText(decodedPath(ctx.path), 'the path');
  for (const [key, value] of Object.entries(ctx.query)) {
    assertStorableText(key, 'a query parameter name');
    for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) assertStorableText(v, `query parameter ${key}`);
  }
  if (ctx.request.body !== undefined) assertStorableJson(ctx.request.body);
  await next();
}

/** Throws VALIDATION_FAILED naming the first field that cannot be stored. */
function assertStorableJson(value: unknown): void {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const { value: v, path, depth } = item;
    if (typeof v === 'string') {
      assertStorableText(v, path ? `field ${path}` : 'the request body');
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) throw validationFailed(`the request body is nested more than ${MAX_JSON_DEPTH} levels deep`, [{ path, message: 'nested too deep' }]);
    for (const [key, child] of Object.entries(v)) {
      const childPath = path ? `${path}.${key}` : key;
      assertStorableText(key, `the field name ${JSON.stringify(childPath.slice(0, 64))}`);
      pending.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
}

function assertStorableText(text: string, where: string): void {
  if (isStorableText(text)) return;
  if (text.includes('\u0000')) throw unstorable(where, 'a NUL character (U+0000)');
  throw unstorable(where, 'a lone UTF-16 surrogate (text that is not valid Unicode)');
}

function unstorable(where: string, what: string) {
  const path = where.startsWith('field ') ? where.slice('field '.length) : undefined;
  return validationFailed(`${where} contains ${what}, which cannot be stored`, path ? [{ path, message: `contains ${what}` }] : undefined);
}

function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    // Koa's router matches the raw path; a bad escape sequence there reaches no stored value.
    return path;
  }
}
