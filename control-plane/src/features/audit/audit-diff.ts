// An update's audit row holds the fields it changed, not two copies of the whole resource.
// Nested objects (a channel's config) are narrowed the same way; lists are compared whole.

type Fields = Record<string, unknown>;

/** Bookkeeping every update moves; it says nothing of what changed. */
const IGNORED = new Set(['updated_at']);

/** The fields whose values differ, as they were and as they became. */
export function changedFields(before: Fields, after: Fields): { before: Fields; after: Fields } {
  const changed = { before: {} as Fields, after: {} as Fields };
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const [was, is] = [before[key], after[key]];
    if (IGNORED.has(key) || sameValue(was, is)) continue;
    if (isFields(was) && isFields(is)) {
      const inner = changedFields(was, is);
      changed.before[key] = inner.before;
      changed.after[key] = inner.after;
      continue;
    }
    if (key in before) changed.before[key] = was;
    if (key in after) changed.after[key] = is;
  }
  return changed;
}

const isFields = (v: unknown): v is Fields => v !== null && typeof v === 'object' && !Array.isArray(v);

function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

/** JSON with object keys sorted, so two objects equal but for key order compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v: unknown) => (isFields(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));
}
