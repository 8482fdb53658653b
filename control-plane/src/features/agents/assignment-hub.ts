// Keeps the assignments of the agents connected to this replica in step with the services
// table and with the agents online on every replica: within a location, each service goes to
// exactly one online agent (rendezvous hashing over the location's agents, wherever they are
// connected), and this replica tells its own agents their share. All changes run through
// one queue, so a snapshot and the updates around it never interleave.
import type { Assignment } from '../../../../shared/src/assignment.js';
import type { Logger } from '../../logger.js';
import type { ServiceRecord } from '../services/service.entity.js';
import type { AgentSessions, OnlineAgent } from './agent-sessions.js';
import { pickOwner } from './rendezvous.js';

export type HubMessage =
  | { kind: 'snapshot'; assignments: Assignment[] }
  | { kind: 'upsert'; assignment: Assignment }
  | { kind: 'removal'; serviceId: string; version: number }
  | { kind: 'runNow'; serviceId: string };

export interface AgentSession extends OnlineAgent {
  send(message: HubMessage): void;
  /** Ends the stream: another stream of the same agent took over. */
  end(reason: string): void;
}

/** May this agent check this service? Platform agents serve all; others their own org's. */
function serves(agent: OnlineAgent, service: ServiceRecord): boolean {
  return agent.organizationId === null || agent.organizationId === service.organizationId;
}

export interface AssignmentHubDeps {
  listForLocation(location: string): Promise<ServiceRecord[]>;
  toAssignment(service: ServiceRecord): Assignment;
  sessions: AgentSessions;
  /** Tells the other replicas that the agents of `location` changed. */
  announce(location: string): Promise<void>;
  logger: Logger;
}

interface SessionState {
  session: AgentSession;
  held: Map<string, number>;
}

export interface AssignmentHub {
  join(session: AgentSession): Promise<void>;
  leave(session: AgentSession): Promise<void>;
  serviceUpserted(service: ServiceRecord): void;
  serviceRemoved(serviceId: string, version: number): void;
  runNow(serviceId: string): void;
  /** Another replica's agents of `location` came or went. */
  placementChanged(location: string): void;
  /**
   * Reads who is online again and corrects what changed (a replica's lease ran out, a stream
   * was superseded); with `everything`, also every assignment (after missed messages).
   */
  refresh(options?: { everything?: boolean }): Promise<void>;
  /** Resolves when every queued change has been handed to the sessions. */
  settled(): Promise<void>;
  onlineAgents(): number;
}

export function createAssignmentHub({ listForLocation, toAssignment, sessions: store, announce, logger }: AssignmentHubDeps): AssignmentHub {
  const sessions = new Map<string, SessionState>();
  /** The agents online in each location this replica serves, as last read. */
  const members = new Map<string, OnlineAgent[]>();
  let queue: Promise<void> = Promise.resolve();

  const enqueue = (work: () => Promise<void> | void): Promise<void> => {
    queue = queue.then(work).catch((err) => logger.error({ err }, 'assignment hub update failed'));
    return queue;
  };

  const localIn = (location: string) => [...sessions.values()].filter((s) => s.session.location === location);
  const localLocations = () => [...new Set([...sessions.values()].map((s) => s.session.location))];

  function ownerOf(service: ServiceRecord, location: string): SessionState | undefined {
    if (!service.locations.includes(location)) return undefined;
    const owner = pickOwner((members.get(location) ?? []).filter((m) => serves(m, service)), service.id);
    return owner && sessions.get(owner.sessionId);
  }

  function send(state: SessionState, service: ServiceRecord, owned: boolean): void {
    const held = state.held.get(service.id);
    if (owned) {
      const assignment = toAssignment(service);
      if (held === assignment.version) return;
      state.session.send({ kind: 'upsert', assignment });
      state.held.set(service.id, assignment.version);
    } else if (held !== undefined) {
      state.session.send({ kind: 'removal', serviceId: service.id, version: held });
      state.held.delete(service.id);
    }
  }

  /** Reads the location's agents and services afresh and sends each local session its difference. */
  async function rebalance(location: string, joined?: SessionState): Promise<void> {
    members.set(location, await store.online([location]));
    const locals = localIn(location);
    if (locals.length === 0) return void members.delete(location);
    const services = await listForLocation(location);
    const wanted = new Map<SessionState, ServiceRecord[]>(locals.map((s) => [s, []]));
    for (const service of services) {
      const owner = ownerOf(service, location);
      if (owner) wanted.get(owner)!.push(service);
    }
    for (const [state, owned] of wanted) {
      if (state === joined) {
        const assignments = owned.map(toAssignment);
        state.session.send({ kind: 'snapshot', assignments });
        state.held = new Map(assignments.map((a) => [a.serviceId, a.version]));
        continue;
      }
      const keep = new Set(owned.map((s) => s.id));
      for (const [serviceId, version] of state.held) {
        if (keep.has(serviceId)) continue;
        state.session.send({ kind: 'removal', serviceId, version });
        state.held.delete(serviceId);
      }
      for (const service of owned) send(state, service, true);
    }
  }

  const sameMembers = (a: OnlineAgent[] = [], b: OnlineAgent[]) => a.length === b.length && a.every((m) => b.some((n) => n.sessionId === m.sessionId));

  return {
    join(session) {
      return enqueue(async () => {
        const state: SessionState = { session, held: new Map() };
        try {
          await store.claim(session);
        } catch (err) {
          // Unrecorded, it would get no services; it dials again (with backoff) instead.
          logger.warn({ err, agentId: session.agentId }, 'could not record an agent session');
          return session.end('the control plane could not record this agent; try again');
        }
        sessions.set(session.sessionId, state);
        await announce(session.location).catch((err) => logger.warn({ err }, 'could not tell the other replicas about an agent'));
        await rebalance(session.location, state);
        logger.info({ agentId: session.agentId, location: session.location, assignments: state.held.size }, 'agent joined');
      });
    },
    leave(session) {
      return enqueue(async () => {
        if (!sessions.delete(session.sessionId)) return;
        logger.info({ agentId: session.agentId, location: session.location }, 'agent left');
        await store.release(session.sessionId);
        await announce(session.location).catch((err) => logger.warn({ err }, 'could not tell the other replicas about an agent'));
        await rebalance(session.location);
      });
    },
    serviceUpserted(service) {
      void enqueue(() => {
        for (const state of sessions.values()) send(state, service, ownerOf(service, state.session.location) === state);
      });
    },
    serviceRemoved(serviceId, version) {
      void enqueue(() => {
        for (const state of sessions.values()) {
          if (!state.held.delete(serviceId)) continue;
          state.session.send({ kind: 'removal', serviceId, version });
        }
      });
    },
    runNow(serviceId) {
      void enqueue(() => {
        for (const state of sessions.values()) if (state.held.has(serviceId)) state.session.send({ kind: 'runNow', serviceId });
      });
    },
    placementChanged(location) {
      void enqueue(() => (localIn(location).length > 0 ? rebalance(location) : undefined));
    },
    refresh({ everything = false } = {}) {
      return enqueue(async () => {
        if (sessions.size === 0) return;
        const held = await store.stillHeld([...sessions.keys()]);
        for (const [sessionId, state] of sessions) {
          if (held.has(sessionId)) continue;
          // Another stream of this agent took over (it reconnected elsewhere): this one is stale.
          sessions.delete(sessionId);
          state.session.end('a newer stream of this agent replaced this one');
        }
        const locations = localLocations();
        const online = await store.online(locations);
        for (const location of locations) {
          const now = online.filter((m) => m.location === location);
          if (everything || !sameMembers(members.get(location), now)) await rebalance(location);
        }
      });
    },
    settled: () => enqueue(() => undefined),
    onlineAgents: () => sessions.size,
  };
}
