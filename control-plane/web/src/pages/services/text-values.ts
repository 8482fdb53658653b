// Text as typed in the service form, turned into the values the API takes and back.
import { ApiError } from '../../api/api-error.js';

export const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** A number when the text is one, else the text itself so the API names the problem. */
export const numberOrText = (text: string): number | string => (/^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text);

/** "Name: value" lines to headers; `path` is where the API would report a bad line. */
export function headersOf(text: string, path: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const colon = line.indexOf(':');
    // Found before sending, and shown at the field like the API's own details.
    if (colon <= 0) throw new ApiError(400, 'invalid options', [{ path, message: `"${line}" is not "Name: value"` }]);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

export function headersText(value: unknown): string {
  return Object.entries((value ?? {}) as Record<string, string>)
    .map(([name, v]) => `${name}: ${v}`)
    .join('\n');
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** The objects of a stored or reported list; anything else is left out. */
export const records = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.filter(isRecord) : []);

export const textOf = (value: unknown) => (value === undefined || value === null ? '' : String(value));
