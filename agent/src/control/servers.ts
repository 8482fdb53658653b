// `--server` names one control plane (HOST:PORT) or several replicas separated by commas.
import { parseHostPort } from '../../../shared/src/endpoints.js';

export function splitServers(server: string): string[] {
  return server.split(',').map((s) => s.trim()).filter(Boolean);
}

/** Is `server` one HOST:PORT or a comma-separated list of them? */
export function isServerList(server: string): boolean {
  const servers = splitServers(server);
  return servers.length > 0 && servers.every((s) => parseHostPort(s) !== null);
}
