import { httpProber } from './http.js';
import type { Prober } from './prober.js';
import { tcpProber } from './tcp.js';

/** Every prober this agent version ships. */
export function defaultProbers(): Prober[] {
  return [httpProber(), tcpProber()];
}
