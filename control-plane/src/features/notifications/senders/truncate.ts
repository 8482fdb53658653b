// Providers cap their fields; a cut value ends with … so that readers see it was cut.

/** Cuts text to at most `max` characters (code points), ending with … when cut. */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** Cuts text to at most `max` UTF-8 bytes, ending with … when cut (for limits counted in bytes). */
export function truncateBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let out = '';
  let size = Buffer.byteLength('…');
  for (const ch of text) {
    size += Buffer.byteLength(ch);
    if (size > max) break;
    out += ch;
  }
  return `${out}…`;
}

/** Escapes then cuts to `max` characters without splitting an escape (Slack counts the escaped text). */
export function truncateEscaped(text: string, max: number, escape: (s: string) => string): string {
  const whole = escape(text);
  if (whole.length <= max) return whole;
  let out = '';
  for (const ch of text) {
    const next = escape(ch);
    if (out.length + next.length > max - 1) break;
    out += next;
  }
  return `${out}…`;
}
