// The agent built into the control plane: the same agent code, dialling the control plane's
// own gRPC port over loopback and serving the location `local`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createAgent } from '../../agent/src/agent.js';
import { defaultProbers } from '../../agent/src/probers/index.js';
import { createProberRegistry } from '../../agent/src/probers/registry.js';
import { AGENT_VERSION } from '../../agent/src/version.js';
import type { Logger } from './logger.js';

export const EMBEDDED_LOCATION = 'local';

export interface EmbeddedAgent {
  stop(): Promise<void>;
}

/** With TLS on the gRPC port, the embedded agent trusts the server's own certificate. */
export async function startEmbeddedAgent(grpcPort: number, token: string, dataDir: string, logger: Logger, serverCertFile?: string): Promise<EmbeddedAgent> {
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
  });
  await agent.start();
  return agent;
}
