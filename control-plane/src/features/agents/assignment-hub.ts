// Keeps the assignments of the agents connected to this replica in step with the services
// table and with the agents online on every replica: within a location, each service goes to
// exactly one online agent (rendezvous hashing over the location's agents, wherever they are
// connected), and this replica tells its own agents their share. All changes run through
// one queue, so a snapshot and the updates around it never interleave.
import type { Assignment } from '../../../../shared/src/assignment.js';
import type { Logger } from '../../logger.js';
import type { ServiceRecord } from '../services/service.entity.js';
import { servesOrganization, type AgentSessions, type OnlineAgent } from './agent-sessions.js';
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
  return servesOrganization(agent, service.organizationId);
}

export interface AssignmentHubDeps {
  listForLocation(location: string): Promise<ServiceRecord[]>;
  /** The services' assignments, in order: built together, so their secrets are read in one go. */
  toAssignments(services: ServiceRecord[]): Promise<Assignment[]>;
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
  /** As serviceUpserted for each, with one assignment build for them all (bulk actions). */
  servicesUpserted(services: ServiceRecord[]): void;
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

export function createAssignmentHub({ listForLocation, toAssignments, sessions: store, announce, logger }: AssignmentHubDeps): AssignmentHub {
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
    // A paused service is nobody's (listForLocation leaves it out of snapshots too).
    if (service.paused || !service.locations.includes(location)) return undefined;
    const owner = pickOwner((members.get(location) ?? []).filter((m) => serves(m, service)), service.id);
    return owner && sessions.get(owner.sessionId);
  }

  /** Tells a session to stop checking a service it holds. */
  function drop(state: SessionState, serviceId: string): void {
    const held = state.held.get(serviceId);
    if (held === undefined) return;
    state.session.send({ kind: 'removal', serviceId, version: held });
    state.held.delete(serviceId);
  }

  const stale = (state: SessionState, service: ServiceRecord) => state.held.get(service.id) !== service.configVersion;

  function deliver(state: SessionState, assignment: Assignment): void {
    state.session.send({ kind: 'upsert', assignment });
    state.held.set(assignment.serviceId, assignment.version);
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
    const updates: [SessionState, ServiceRecord][] = [];
    for (const [state, owned] of wanted) {
      if (state === joined) continue;
      const keep = new Set(owned.map((s) => s.id));
      for (const serviceId of state.held.keys()) if (!keep.has(serviceId)) drop(state, serviceId);
      for (const service of owned) if (stale(state, service)) updates.push([state, service]);
    }
    // The joined session's snapshot and the others' updates, built together.
    const snapshot = joined ? wanted.get(joined)! : [];
    const built = await toAssignments([...snapshot, ...updates.map(([, service]) => service)]);
    if (joined) {
      const assignments = built.slice(0, snapshot.length);
      joined.session.send({ kind: 'snapshot', assignments });
      joined.held = new Map(assignments.map((a) => [a.serviceId, a.version]));
    }
    updates.forEach(([state], i) => deliver(state, built[snapshot.length + i]!));
  }

  /** Hands each service's assignment to its owners here, and drops it from the sessions that no longer own it. */
  function upserted(services: ServiceRecord[]): void {
    void enqueue(async () => {
      const deliveries: [SessionState, ServiceRecord][] = [];
      for (const service of services) {
        for (const state of sessions.values()) {
          if (ownerOf(service, state.session.location) !== state) drop(state, service.id);
          else if (stale(state, service)) deliveries.push([state, service]);
        }
      }
      if (deliveries.length === 0) return;
      // Built once per service, however many locations of this replica own it.
      const wanted = [...new Set(deliveries.map(([, service]) => service))];
      const built = new Map((await toAssignments(wanted)).map((assignment, i) => [wanted[i]!, assignment]));
      for (const [state, service] of deliveries) deliver(state, built.get(service)!);
    });
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
    serviceUpserted: (service) => upserted([service]),
    servicesUpserted: (services) => upserted(services),
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
