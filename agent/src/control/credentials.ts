// How the agent's stream is secured: TLS with the system trust store (or --ca), with a
// client certificate when given (mTLS). Plaintext only to a loopback address or when the
// operator asks for it explicitly with --insecure.
import { readFileSync } from 'node:fs';
import { isLoopback, parseHostPort } from '../../../shared/src/endpoints.js';
import type { StreamTls } from './grpc-stream.js';
import { splitServers } from './servers.js';

export interface TransportOptions {
  /** HOST:PORT, or several separated by commas. */
  server: string;
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  insecure?: boolean;
}

/** The stream's TLS settings, or undefined for plaintext. */
export function streamTls(o: TransportOptions): StreamTls | undefined {
  const allLoopback = splitServers(o.server).every((s) => isLoopback(parseHostPort(s)?.host ?? ''));
  const wantsTls = Boolean(o.caFile || o.certFile);
  if (o.insecure || (!wantsTls && allLoopback)) return undefined;
  return {
    ca: o.caFile ? readFileSync(o.caFile) : undefined,
    key: o.keyFile ? readFileSync(o.keyFile) : undefined,
    cert: o.certFile ? readFileSync(o.certFile) : undefined,
  };
}
