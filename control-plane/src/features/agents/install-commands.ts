// The commands that install and start an agent, answered beside a new token (POST /agents,
// token rotation): from the Debian package (deploy/debian) and from a checkout. The gRPC
// address is PUBLIC_GRPC_ADDRESS, else the host name the request came to with the gRPC port.
import { isLoopback, parseHostPort } from '../../../../shared/src/endpoints.js';

export interface AgentInstallSettings {
  /** PUBLIC_GRPC_ADDRESS: where agents reach the gRPC endpoint (a load balancer, a NAT). */
  publicGrpcAddress: string | undefined;
  /** The bound gRPC port (GRPC_PORT 0 picks one at start). */
  grpcPort: number;
  /** The gRPC endpoint has TLS; without it agents need --insecure unless on loopback. */
  tls: boolean;
}

export interface InstallCommands {
  server: string;
  deb: string[];
  checkout: string[];
}

/** Single-quoted unless made only of characters no POSIX shell treats specially. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9_.:,@%+=/[\]-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

export function agentGrpcAddress(settings: AgentInstallSettings, requestHostname: string): string {
  if (settings.publicGrpcAddress) return settings.publicGrpcAddress;
  const host = requestHostname.includes(':') && !requestHostname.startsWith('[') ? `[${requestHostname}]` : requestHostname;
  return `${host}:${settings.grpcPort}`;
}

export function installCommands(server: string, agent: { token: string; location: string }, tls: boolean): InstallCommands {
  const plaintextNeedsFlag = !tls && !isLoopback(parseHostPort(server)?.host ?? '');
  const flags = ['--server', server, '--token', agent.token, '--location', agent.location, ...(plaintextNeedsFlag ? ['--insecure'] : [])].map(shellWord).join(' ');
  return {
    server,
    deb: ['sudo apt install ./outpost-agent_*_amd64.deb', `sudo outpost-agent install ${flags}`],
    checkout: ['npm install && npm run build', `sudo node dist/agent/src/cli.js install ${flags}`],
  };
}
