// Rendezvous (highest random weight) hashing: each service goes to the agent with the
// highest hash of (agent, service). When an agent leaves, only its services move.
import { createHash } from 'node:crypto';

export function pickOwner<T extends { agentId: string }>(candidates: readonly T[], serviceId: string): T | undefined {
  let best: T | undefined;
  let bestWeight = -1n;
  for (const candidate of candidates) {
    const weight = createHash('sha1').update(candidate.agentId).update('\0').update(serviceId).digest().readBigUInt64BE(0);
    if (weight > bestWeight || (weight === bestWeight && best && candidate.agentId < best.agentId)) {
      best = candidate;
      bestWeight = weight;
    }
  }
  return best;
}
