// The agent gateway's side of the watchdog: every agent that connects is remembered (platform
// and registered alike), and every stream that ends is seen until then. An agent that
// returns from being offline, or is new (it may end a dark location), wakes the watchdog at
// once to resolve what its silence opened; one that leaves wakes it when it would fall
// silent. Failures are logged, never thrown into the stream.
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { AgentSightingsRepository, ArrivedAgent } from './agent-sightings.repository.js';

export interface AgentWatch {
  arrived(agent: ArrivedAgent): void;
  left(agentId: string): void;
}

export function createAgentWatch({ sightings, clock, offlineMs, nudge, logger }: {
  sightings: Pick<AgentSightingsRepository, 'arrived' | 'left'>;
  clock: Clock;
  offlineMs: number;
  /** Wakes the watchdog by this time. */
  nudge: (at: Date) => void;
  logger: Logger;
}): AgentWatch {
  const failed = (err: unknown) => logger.warn({ err }, 'recording an agent sighting failed');
  return {
    arrived(agent) {
      const at = clock.now();
      sightings.arrived(agent, at).then((returned) => returned && nudge(at), failed);
    },
    left(agentId) {
      const at = clock.now();
      sightings.left(agentId, at).then(() => nudge(new Date(at.getTime() + offlineMs)), failed);
    },
  };
}
