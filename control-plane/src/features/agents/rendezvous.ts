// Rendezvous (highest random weight) hashing: each service goes to the agent with the
// highest hash of (agent, service). When an agent leaves, only its services move.
import { hash } from 'node:crypto';

export function pickOwner<T extends { agentId: string }>(candidates: readonly T[], serviceId: string): T | undefined {
  let best: T | undefined;
  let bestWeight = -1n;
  for (const candidate of candidates) {
    // The one-shot hash: a placement of thousands of services makes a hash per agent and service.
    const weight = hash('sha1', `${candidate.agentId}\0${serviceId}`, 'buffer').readBigUInt64BE(0);
    if (weight > bestWeight || (weight === bestWeight && best && candidate.agentId < best.agentId)) {
      best = candidate;
      bestWeight = weight;
    }
  }
  return best;
}
