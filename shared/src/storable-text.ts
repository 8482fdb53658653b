// Text PostgreSQL can store: no NUL (U+0000) and no lone UTF-16 surrogate, which no UTF-8
// encoding has. Requests carrying such text are refused (400); what agents report (a target's
// banner may hold anything) is repaired instead, so one odd byte cannot block a batch.

export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}

/** Replaces NUL and lone surrogates with U+FFFD, the replacement character. */
export function toStorableText(text: string): string {
  return isStorableText(text) ? text : text.replaceAll('\u0000', '\uFFFD').toWellFormed();
}

/** The same for every string (keys included) of a JSON value; the value itself when nothing needs it. */
export function toStorableJson(value: unknown): unknown {
  return isStorableJson(value) ? value : repaired(value);
}

function isStorableJson(value: unknown): boolean {
  if (typeof value === 'string') return isStorableText(value);
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every(isStorableJson);
  return Object.entries(value).every(([k, v]) => isStorableText(k) && isStorableJson(v));
}

function repaired(value: unknown): unknown {
  if (typeof value === 'string') return toStorableText(value);
  if (Array.isArray(value)) return value.map(repaired);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [toStorableText(k), repaired(v)]));
}
