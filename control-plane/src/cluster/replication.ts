// Makes the replicas behave as one: what changes on this replica reaches the others through
// the cluster bus, and what they announce reaches this replica's agents, caches and streams.
// After the bus missed messages (its connection dropped), the caches are emptied and every
// assignment is read again, instead of trusting what memory holds.
import type { Logger } from '../logger.js';
import type { AssignmentHub } from '../features/agents/assignment-hub.js';
import type { RuleCache } from '../features/alerting/rule-cache.js';
import type { VerifiedKeys } from '../features/api-keys/verified-keys.js';
import type { SessionLiveness } from '../features/sessions/session-liveness.js';
import type { SessionEnds } from '../features/sessions/sessions.service.js';
import type { ServiceRecord } from '../features/services/service.entity.js';
import type { ServiceChangeListener } from '../features/services/services.service.js';
import type { ClusterBus } from './cluster-bus.js';
import { MAX_IDS_PER_MESSAGE, type ClusterMessage } from './cluster-message.js';

export interface ReplicationDeps {
  bus: ClusterBus;
  hub: AssignmentHub;
  /** The other live replicas, which must confirm revocations and rule changes. */
  peers(): Promise<string[]>;
  findService(serviceId: string): Promise<ServiceRecord | null>;
  /** The services among these ids that exist, in one read. */
  findServices(serviceIds: string[]): Promise<ServiceRecord[]>;
  ruleCache: RuleCache;
  verifiedKeys: VerifiedKeys;
  sessionLiveness: SessionLiveness;
  /** Ends this replica's streams of a registered agent. */
  disconnectAgent(agentId: string): void;
  logger: Logger;
}

export interface Replication extends SessionEnds {
  /** Service changes for this replica's agents and every other replica's. */
  serviceChanges: ServiceChangeListener;
  rulesChanged(organizationId: string): Promise<void>;
  apiKeyRevoked(keyId: string): Promise<void>;
  agentRevoked(agentId: string): Promise<void>;
}

export function replicate({ bus, hub, peers, findService, findServices, ruleCache, verifiedKeys, sessionLiveness, disconnectAgent, logger }: ReplicationDeps): Replication {
  bus.on('service', async ({ id, v, removed }) => {
    // A replica with no agent has no one to tell, and need not read the service.
    if (hub.onlineAgents() === 0) return;
    const service = removed ? null : await findService(id);
    if (service) hub.serviceUpserted(service);
    // Not found: deleted since; its own removal message follows.
    else if (removed) hub.serviceRemoved(id, v);
  });
  bus.on('run', ({ id }) => hub.runNow(id));
  bus.on('services', async ({ ids, vs, removed }) => {
    if (hub.onlineAgents() === 0) return;
    // Those not found were deleted since; their own removal message follows.
    if (!removed) hub.servicesUpserted(await findServices(ids));
    else ids.forEach((id, i) => hub.serviceRemoved(id, vs[i]!));
  });
  bus.on('runs', ({ ids }) => ids.forEach((id) => hub.runNow(id)));
  bus.on('placement', ({ location }) => hub.placementChanged(location));
  bus.on('rules', ({ org }) => ruleCache.invalidate(org));
  bus.on('key', ({ id }) => verifiedKeys.forget(id));
  bus.on('agent', ({ id }) => disconnectAgent(id));
  bus.on('sessions', ({ ids }) => ids.forEach((id) => sessionLiveness.forgetSession(id)));
  bus.on('user-sessions', ({ id }) => sessionLiveness.forgetUser(id));
  bus.onResync(async () => {
    ruleCache.clear();
    verifiedKeys.clear();
    sessionLiveness.clear();
    await hub.refresh({ everything: true });
  });

  // Service changes are announced after their commit; one lost here is corrected by the
  // replicas' periodic full refresh, so it is logged rather than failing the request.
  const tell = (message: ClusterMessage) => void bus.publish(message).catch((err) => logger.warn({ err, kind: message.k }, 'telling the other replicas failed'));
  // What must hold everywhere before the request that made it is answered waits for every live
  // replica to have handled it. One that does not confirm in time is dead, or its bus is
  // reconnecting and empties its caches once back (onResync above): the request still succeeds.
  const tellAndWait = async (message: ClusterMessage) => {
    const late = await bus.publishConfirmed(message, await peers());
    if (late.length > 0) logger.warn({ kind: message.k, replicas: late }, 'replicas did not confirm a change in time');
  };

  /** The services in messages of at most MAX_IDS_PER_MESSAGE ids each. */
  const inChunks = (services: ServiceRecord[], message: (chunk: ServiceRecord[]) => ClusterMessage) => {
    for (let i = 0; i < services.length; i += MAX_IDS_PER_MESSAGE) tell(message(services.slice(i, i + MAX_IDS_PER_MESSAGE)));
  };

  return {
    serviceChanges: {
      serviceUpserted(service) {
        hub.serviceUpserted(service);
        tell({ k: 'service', id: service.id, v: service.configVersion, removed: false });
      },
      serviceRemoved(service) {
        const version = service.configVersion + 1;
        hub.serviceRemoved(service.id, version);
        tell({ k: 'service', id: service.id, v: version, removed: true });
      },
      runNow(service) {
        hub.runNow(service.id);
        tell({ k: 'run', id: service.id });
      },
      servicesUpserted(services) {
        if (services.length === 0) return;
        hub.servicesUpserted(services);
        inChunks(services, (chunk) => ({ k: 'services', ids: chunk.map((s) => s.id), vs: chunk.map((s) => s.configVersion), removed: false }));
      },
      servicesRemoved(services) {
        for (const service of services) hub.serviceRemoved(service.id, service.configVersion + 1);
        inChunks(services, (chunk) => ({ k: 'services', ids: chunk.map((s) => s.id), vs: chunk.map((s) => s.configVersion + 1), removed: true }));
      },
      servicesRunNow(services) {
        for (const service of services) hub.runNow(service.id);
        inChunks(services, (chunk) => ({ k: 'runs', ids: chunk.map((s) => s.id) }));
      },
    },
    async rulesChanged(organizationId) {
      ruleCache.invalidate(organizationId);
      await tellAndWait({ k: 'rules', org: organizationId });
    },
    async apiKeyRevoked(keyId) {
      verifiedKeys.forget(keyId);
      await tellAndWait({ k: 'key', id: keyId });
    },
    async sessionsEnded(sessionIds) {
      for (let i = 0; i < sessionIds.length; i += MAX_IDS_PER_MESSAGE) {
        const chunk = sessionIds.slice(i, i + MAX_IDS_PER_MESSAGE);
        chunk.forEach((id) => sessionLiveness.forgetSession(id));
        await tellAndWait({ k: 'sessions', ids: chunk });
      }
    },
    async userSessionsEnded(userId) {
      sessionLiveness.forgetUser(userId);
      await tellAndWait({ k: 'user-sessions', id: userId });
    },
    async agentRevoked(agentId) {
      disconnectAgent(agentId);
      await tellAndWait({ k: 'agent', id: agentId });
    },
  };
}
