// The escapes of a TCP check's `send`: \r, \n, \t, \\ and \xHH. A form field or a JSON string
// cannot be trusted with a line ending the way a protocol wants it, nor hold a byte that is not
// UTF-8; these spell both. Shared so that the options schema refuses what the agent cannot decode.

export class EscapeError extends Error {}

/** An escape, or a backslash that starts none (the last alternative, refused). */
const ESCAPE = /\\(?:x([0-9a-fA-F]{2})|([rnt\\]))|\\/g;
const SIMPLE: Record<string, number> = { r: 0x0d, n: 0x0a, t: 0x09, '\\': 0x5c };

/** The bytes `text` spells: its characters in UTF-8, escapes decoded. Throws EscapeError at the first bad escape. */
export function decodeEscapes(text: string): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (const match of text.matchAll(ESCAPE)) {
    const [escape, hex, simple] = match;
    if (hex === undefined && simple === undefined) {
      throw new EscapeError(`"${text.slice(match.index, match.index + 4)}" at character ${match.index + 1} is not an escape (\\r, \\n, \\t, \\\\ or \\xHH)`);
    }
    parts.push(Buffer.from(text.slice(from, match.index), 'utf8'), Buffer.of(hex !== undefined ? parseInt(hex, 16) : SIMPLE[simple!]!));
    from = match.index + escape.length;
  }
  parts.push(Buffer.from(text.slice(from), 'utf8'));
  return Buffer.concat(parts);
}

export function isEscapedText(text: string): boolean {
  try {
    decodeEscapes(text);
    return true;
  } catch {
    return false;
  }
}
