// The `result` source of the SQL families (MYSQL, POSTGRES): the first column of the first
// row, as a value an assertion compares. Both drivers hand over some types as text and others
// as objects; these turn them into what the column means: numbers as numbers, times as ISO
// text, bytes as text.

/** Significant decimal digits a double always holds exactly. */
const EXACT_DIGITS = 15;

/**
 * A 64-bit integer or decimal the driver gave as text ("42", "-0.50"): a number when a double
 * holds it exactly, else the text, never a rounded number ("count(*) equals 42" must hold).
 */
export function exactNumber(text: string): number | string {
  // Not significant: the sign, the point, leading zeros, and trailing zeros of a fraction.
  const trimmed = text.includes('.') ? text.replace(/\.?0*$/, '') : text;
  const digits = trimmed.replace(/^[-+]/, '').replace('.', '').replace(/^0+/, '').length;
  const n = Number(text);
  return digits <= EXACT_DIGITS && Number.isFinite(n) ? n : text;
}

/** "2024-05-01 12:00:00" (a date and time without a zone) → "2024-05-01T12:00:00". */
export function localDateTime(text: string): string {
  return text.replace(' ', 'T');
}

/** The first value of the first row; null when there is none. Dates become ISO text, bytes UTF-8 text. */
export function firstValue(rows: unknown): unknown {
  const row = Array.isArray(rows) ? (rows[0] as unknown) : undefined;
  const value = Array.isArray(row) ? (row[0] as unknown) : undefined;
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return value;
}
