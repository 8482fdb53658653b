// How the agent's stream is secured: TLS with the system trust store (or --ca), with a
// client certificate when given (mTLS). Plaintext only to a loopback address or when the
// operator asks for it explicitly with --insecure.
import { readFileSync } from 'node:fs';
import { credentials, type ChannelCredentials } from '@grpc/grpc-js';
import { isLoopback, parseHostPort } from '../../../shared/src/endpoints.js';
import { splitServers } from './servers.js';

export interface TransportOptions {
  /** HOST:PORT, or several separated by commas. */
  server: string;
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  insecure?: boolean;
}

export function channelCredentials(o: TransportOptions): { credentials: ChannelCredentials; tls: boolean } {
  const allLoopback = splitServers(o.server).every((s) => isLoopback(parseHostPort(s)?.host ?? ''));
  const wantsTls = Boolean(o.caFile || o.certFile);
  if (o.insecure || (!wantsTls && allLoopback)) return { credentials: credentials.createInsecure(), tls: false };
  return {
    credentials: credentials.createSsl(
      o.caFile ? readFileSync(o.caFile) : null,
      o.keyFile ? readFileSync(o.keyFile) : null,
      o.certFile ? readFileSync(o.certFile) : null,
    ),
    tls: true,
  };
}
