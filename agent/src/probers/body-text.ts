/**
 * What a TCP conversation or a UDP datagram read back, as the `body` source sees it: UTF-8 when
 * the bytes are (a character cut at the size limit aside), else latin1: one character per byte,
 * none lost.
 */
export function bodyText(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
  } catch {
    return bytes.toString('latin1');
  }
}
