// The agent built into the control plane: the same agent code, dialling the control plane's
// own gRPC port over loopback and serving the location `local`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createAgent } from '../../agent/src/agent.js';
import { defaultProbers } from '../../agent/src/probers/index.js';
import { createProberRegistry } from '../../agent/src/probers/registry.js';
import { STEADY_DELAY_MS } from '../../agent/src/publisher/publisher.js';
import { AGENT_VERSION } from '../../agent/src/version.js';
import type { Logger } from './logger.js';

export const EMBEDDED_LOCATION = 'local';

/**
 * How long a steady result (GREEN, unchanged) of the embedded agent may wait for others while
 * nobody follows the live feed: one ingest transaction then stores several, which costs an
 * installation of a few dozen services a fraction of the CPU per check of one transaction per
 * result (bench/idle.ts). Failures, changes and first results still go at once (ADR 0013).
 */
const UNWATCHED_STEADY_DELAY_MS = 10_000;

export interface EmbeddedAgent {
  /** Someone started following the live feed: steady results go within the usual half second again. */
  watched(): void;
  stop(): Promise<void>;
}

/**
 * With TLS on the gRPC port, the embedded agent trusts the server's own certificate. `watched`
 * says whether anyone follows the results live (a WebSocket client here, or another replica).
 */
export async function startEmbeddedAgent(grpcPort: number, token: string, dataDir: string, logger: Logger, watched: () => boolean, serverCertFile?: string): Promise<EmbeddedAgent> {
  const agent = createAgent({
    // The certificate names the public host, not 127.0.0.1; trusting this one certificate is the check.
    tls: serverCertFile ? { ca: readFileSync(serverCertFile), checkServerIdentity: () => undefined } : undefined,
    server: `127.0.0.1:${grpcPort}`,
    token,
    location: EMBEDDED_LOCATION,
    dataDir: path.join(dataDir, 'embedded-agent'),
    version: AGENT_VERSION,
    registry: createProberRegistry(defaultProbers()),
    logger: logger.child({ component: 'embedded-agent' }),
    batchMaxDelayMs: () => (watched() ? STEADY_DELAY_MS : UNWATCHED_STEADY_DELAY_MS),
  });
  await agent.start();
  return { watched: () => agent.steadyDelayShortened(), stop: () => agent.stop() };
}
