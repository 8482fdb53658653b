// Short, human messages for the socket errors every prober meets.
const MESSAGES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by peer',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found (DNS)',
  EAI_AGAIN: 'DNS lookup failed (temporary)',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed by peer',
  CERT_HAS_EXPIRED: 'TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate cannot be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host name',
};

export function describeNetworkError(err: unknown): string {
  const e = err as { code?: unknown; message?: string; reason?: unknown } | null | undefined;
  // Drivers put numbers in `code` too (MongoDB server errors): only node's codes are strings.
  const code = typeof e?.code === 'string' ? e.code : undefined;
  if (code && MESSAGES[code]) return MESSAGES[code]!;
  // node's HTTP parser (HPE_*) and HTTP/2 framing errors: the peer speaks something else.
  if (code?.startsWith('HPE_')) return `not an HTTP server (${e?.message ?? code})`;
  if (code === 'ERR_HTTP2_ERROR') return `not an HTTP/2 server (${e?.message ?? code})`;
  // OpenSSL's own message is a multi-line dump; its reason ("wrong version number") is the news.
  if (code?.startsWith('ERR_SSL_') && typeof e?.reason === 'string') return `TLS handshake failed: ${e.reason}`;
  return e?.message || String(err);
}
