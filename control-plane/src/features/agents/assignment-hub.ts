// Keeps every connected agent's assignments in step with the services table. All changes
// run through one queue, so a snapshot and the updates around it never interleave.
import type { Assignment } from '../../../../shared/src/assignment.js';
import type { Logger } from '../../logger.js';
import type { ServiceRecord } from '../services/service.entity.js';
import type { ServiceChangeListener } from '../services/services.service.js';
import { pickOwner } from './rendezvous.js';

export type HubMessage =
  | { kind: 'snapshot'; assignments: Assignment[] }
  | { kind: 'upsert'; assignment: Assignment }
  | { kind: 'removal'; serviceId: string; version: number }
  | { kind: 'runNow'; serviceId: string };

export interface AgentSession {
  readonly agentId: string;
  readonly location: string;
  /** null for a platform agent, which serves every organization. */
  readonly organizationId: string | null;
  send(message: HubMessage): void;
}

/** May this session check this service? Platform agents serve all; others their own org's. */
function serves(session: AgentSession, service: ServiceRecord): boolean {
  return session.organizationId === null || session.organizationId === service.organizationId;
}

export interface AssignmentHubDeps {
  listForLocation(location: string): Promise<ServiceRecord[]>;
  toAssignment(service: ServiceRecord): Assignment;
  logger: Logger;
}

interface SessionState {
  session: AgentSession;
  held: Map<string, number>;
}

export interface AssignmentHub extends ServiceChangeListener {
  join(session: AgentSession): Promise<void>;
  leave(session: AgentSession): Promise<void>;
  /** Resolves when every queued change has been handed to the sessions. */
  settled(): Promise<void>;
  onlineAgents(): number;
}

export function createAssignmentHub({ listForLocation, toAssignment, logger }: AssignmentHubDeps): AssignmentHub {
  const sessions = new Map<AgentSession, SessionState>();
  let queue: Promise<void> = Promise.resolve();

  const enqueue = (work: () => Promise<void> | void): Promise<void> => {
    queue = queue.then(work).catch((err) => logger.error({ err }, 'assignment hub update failed'));
    return queue;
  };

  const inLocation = (location: string) => [...sessions.values()].filter((s) => s.session.location === location);

  /** Recomputes who owns each service of `location` and sends each session its difference. */
  async function rebalance(location: string, joined?: SessionState): Promise<void> {
    const members = inLocation(location);
    if (members.length === 0) return;
    const services = await listForLocation(location);
    const wanted = new Map<SessionState, Assignment[]>(members.map((m) => [m, []]));
    for (const service of services) {
      const candidates = members.filter((m) => serves(m.session, service)).map((m) => ({ agentId: m.session.agentId, state: m }));
      const owner = pickOwner(candidates, service.id);
      if (owner) wanted.get(owner.state)!.push(toAssignment(service));
    }
    for (const [state, assignments] of wanted) {
      if (state === joined) {
        state.session.send({ kind: 'snapshot', assignments });
        state.held = new Map(assignments.map((a) => [a.serviceId, a.version]));
        continue;
      }
      const keep = new Set(assignments.map((a) => a.serviceId));
      for (const [serviceId, version] of state.held) {
        if (!keep.has(serviceId)) {
          state.session.send({ kind: 'removal', serviceId, version });
          state.held.delete(serviceId);
        }
      }
      for (const a of assignments) {
        if (state.held.get(a.serviceId) !== a.version) {
          state.session.send({ kind: 'upsert', assignment: a });
          state.held.set(a.serviceId, a.version);
        }
      }
    }
  }

  function placeService(service: ServiceRecord): void {
    const byLocation = new Map<string, SessionState[]>();
    for (const state of sessions.values()) {
      const list = byLocation.get(state.session.location) ?? [];
      list.push(state);
      byLocation.set(state.session.location, list);
    }
    for (const [location, members] of byLocation) {
      const candidates = members.filter((m) => serves(m.session, service)).map((m) => ({ agentId: m.session.agentId, state: m }));
      const owner = service.locations.includes(location) ? pickOwner(candidates, service.id)?.state : undefined;
      for (const state of members) {
        const held = state.held.get(service.id);
        if (state === owner) {
          const assignment = toAssignment(service);
          if (held !== assignment.version) {
            state.session.send({ kind: 'upsert', assignment });
            state.held.set(service.id, assignment.version);
          }
        } else if (held !== undefined) {
          state.session.send({ kind: 'removal', serviceId: service.id, version: held });
          state.held.delete(service.id);
        }
      }
    }
  }

  return {
    join(session) {
      return enqueue(async () => {
        const state: SessionState = { session, held: new Map() };
        sessions.set(session, state);
        await rebalance(session.location, state);
        logger.info({ agentId: session.agentId, location: session.location, assignments: state.held.size }, 'agent joined');
      });
    },
    leave(session) {
      return enqueue(async () => {
        if (!sessions.delete(session)) return;
        logger.info({ agentId: session.agentId, location: session.location }, 'agent left');
        await rebalance(session.location);
      });
    },
    serviceUpserted(service) {
      void enqueue(() => placeService(service));
    },
    serviceRemoved(service) {
      void enqueue(() => {
        for (const state of sessions.values()) {
          const held = state.held.get(service.id);
          if (held === undefined) continue;
          state.session.send({ kind: 'removal', serviceId: service.id, version: service.configVersion + 1 });
          state.held.delete(service.id);
        }
      });
    },
    runNow(service) {
      void enqueue(() => {
        for (const state of sessions.values()) {
          if (state.held.has(service.id)) state.session.send({ kind: 'runNow', serviceId: service.id });
        }
      });
    },
    settled: () => enqueue(() => undefined),
    onlineAgents: () => sessions.size,
  };
}
