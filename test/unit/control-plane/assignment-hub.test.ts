import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { AgentSessions, OnlineAgent } from '../../../control-plane/src/features/agents/agent-sessions.js';
import { createAssignmentHub, type AgentSession, type AssignmentHub, type HubMessage } from '../../../control-plane/src/features/agents/assignment-hub.js';
import type { ServiceRecord } from '../../../control-plane/src/features/services/service.entity.js';
import { createLogger } from '../../../control-plane/src/logger.js';

function service(id: string, fields: Partial<ServiceRecord> = {}): ServiceRecord {
  return {
    id, organizationId: 'org', name: id, description: null, environment: null, endpoint: 'http://x/', checkType: 'HTTP',
    checkIntervalSeconds: 60, timeoutSeconds: 10, tags: [], locations: ['local'], options: {}, status: null,
    lastCheckedAt: null, lastResponseTimeMs: null, paused: false, stale: false, flapping: false, configVersion: 1, createdAt: new Date(), updatedAt: new Date(), ...fields,
  };
}

/** The sessions table of every replica, in memory; `alive` plays the replicas' leases. */
class SessionTable {
  rows = new Map<string, OnlineAgent & { replica: string }>();
  alive = new Set<string>();
  forReplica(replica: string): AgentSessions {
    this.alive.add(replica);
    return {
      claim: async (s) => void this.rows.set(s.agentId, { ...s, replica }),
      release: async (sessionId) => {
        for (const [agentId, row] of this.rows) if (row.sessionId === sessionId) this.rows.delete(agentId);
      },
      online: async (locations) => [...this.rows.values()].filter((r) => locations.includes(r.location) && this.alive.has(r.replica)),
      stillHeld: async (ids) => new Set([...this.rows.values()].filter((r) => r.replica === replica && ids.includes(r.sessionId)).map((r) => r.sessionId)),
    };
  }
}

class FakeSession implements AgentSession {
  messages: HubMessage[] = [];
  readonly sessionId = randomUUID();
  ended: string | undefined;
  constructor(
    readonly agentId: string,
    readonly location = 'local',
    readonly organizationId: string | null = null,
  ) {}
  send(m: HubMessage) {
    this.messages.push(m);
  }
  end(reason: string) {
    this.ended = reason;
  }
  held(): Set<string> {
    const held = new Set<string>();
    for (const m of this.messages) {
      if (m.kind === 'snapshot') {
        held.clear();
        for (const a of m.assignments) held.add(a.serviceId);
      } else if (m.kind === 'upsert') held.add(m.assignment.serviceId);
      else if (m.kind === 'removal') held.delete(m.serviceId);
    }
    return held;
  }
}

describe('assignment hub', () => {
  let table: ServiceRecord[];
  let sessions: SessionTable;
  let replicas: Map<string, AssignmentHub>;
  /** One replica's hub; announcements reach the other replicas' hubs, as the cluster bus does. */
  const hub = (replica = 'one') => {
    const created = createAssignmentHub({
      listForLocation: async (location) => table.filter((s) => s.locations.includes(location)),
      toAssignments: async (list) => list.map((s) => ({ serviceId: s.id, version: s.configVersion, checkType: s.checkType, endpoint: s.endpoint, intervalSeconds: s.checkIntervalSeconds, timeoutSeconds: s.timeoutSeconds, options: s.options })),
      sessions: sessions.forReplica(replica),
      announce: async (location) => {
        for (const [name, other] of replicas) if (name !== replica) other.placementChanged(location);
      },
      logger: createLogger('silent'),
    });
    replicas.set(replica, created);
    return created;
  };
  const settled = () => Promise.all([...replicas.values()].map((h) => h.settled()));
  beforeEach(() => {
    table = Array.from({ length: 40 }, (_, i) => service(`svc-${i}`));
    sessions = new SessionTable();
    replicas = new Map();
  });

  describe('join', () => {
    it("sends a joining agent a snapshot of its location's services", async () => {
      const h = hub();
      const a = new FakeSession('a');
      table.push(service('far', { locations: ['elsewhere'] }));
      await h.join(a);
      expect(a.messages[0]?.kind).to.equal('snapshot');
      expect(a.held().size).to.equal(40);
    });

    it('splits a location between its agents so that each service has exactly one', async () => {
      const h = hub();
      const a = new FakeSession('a');
      const b = new FakeSession('b');
      await h.join(a);
      await h.join(b);
      const [ha, hb] = [a.held(), b.held()];
      expect(ha.size + hb.size).to.equal(40);
      expect([...ha].filter((id) => hb.has(id))).to.deep.equal([]);
      expect(ha.size).to.be.greaterThan(5);
      expect(hb.size).to.be.greaterThan(5);
    });
  });

  describe('leave', () => {
    it("moves a leaving agent's services to the agents that remain", async () => {
      const h = hub();
      const a = new FakeSession('a');
      const b = new FakeSession('b');
      await h.join(a);
      await h.join(b);
      await h.leave(b);
      expect(a.held().size).to.equal(40);
    });
  });

  describe('service changes', () => {
    it('upserts a changed service to its owner only, and removes it when its location changes', async () => {
      const h = hub();
      const a = new FakeSession('a');
      const b = new FakeSession('b', 'elsewhere');
      await h.join(a);
      await h.join(b);
      h.serviceUpserted(service('svc-0', { configVersion: 2, locations: ['elsewhere'] }));
      await h.settled();
      expect(a.held().has('svc-0')).to.equal(false);
      expect(b.held().has('svc-0')).to.equal(true);
      const upsert = b.messages.find((m) => m.kind === 'upsert');
      expect(upsert?.kind === 'upsert' && upsert.assignment.version).to.equal(2);
    });

    it('drops paused services and gives them back on resume, building the assignments of many in one go', async () => {
      const built: number[] = [];
      const h = createAssignmentHub({
        listForLocation: async () => table,
        toAssignments: async (list) => {
          built.push(list.length);
          return list.map((s) => ({ serviceId: s.id, version: s.configVersion, checkType: s.checkType, endpoint: s.endpoint, intervalSeconds: s.checkIntervalSeconds, timeoutSeconds: s.timeoutSeconds, options: s.options }));
        },
        sessions: sessions.forReplica('one'),
        announce: async () => undefined,
        logger: createLogger('silent'),
      });
      const a = new FakeSession('a');
      await h.join(a);
      h.servicesUpserted(table.slice(0, 30).map((s) => ({ ...s, paused: true, configVersion: 2 })));
      await h.settled();
      expect(a.held().size).to.equal(10);
      built.length = 0;
      h.servicesUpserted(table.slice(0, 30).map((s) => ({ ...s, paused: false, configVersion: 3 })));
      await h.settled();
      expect(a.held().size).to.equal(40);
      expect(built).to.deep.equal([30]);
    });

    it('removes a deleted service with a version no lower than the one held', async () => {
      const h = hub();
      const a = new FakeSession('a');
      await h.join(a);
      h.serviceRemoved('svc-3', 5);
      await h.settled();
      const removal = a.messages.find((m) => m.kind === 'removal');
      expect(removal).to.deep.equal({ kind: 'removal', serviceId: 'svc-3', version: 5 });
    });

    it("gives an organization's own agent only that organization's services", async () => {
      const h = hub();
      table.push(service('theirs', { organizationId: 'other-org' }));
      const own = new FakeSession('own', 'local', 'other-org');
      await h.join(own);
      expect([...own.held()]).to.deep.equal(['theirs']);
      const platform = new FakeSession('platform');
      await h.join(platform);
      expect(platform.held().size + own.held().size).to.equal(41);
      expect([...own.held()].every((id) => id === 'theirs')).to.equal(true);
    });

    it('sends run_now to the agent holding the service', async () => {
      const h = hub();
      const a = new FakeSession('a');
      const b = new FakeSession('b');
      await h.join(a);
      await h.join(b);
      const owner = a.held().has('svc-7') ? a : b;
      const other = owner === a ? b : a;
      h.runNow('svc-7');
      await h.settled();
      expect(owner.messages.at(-1)).to.deep.equal({ kind: 'runNow', serviceId: 'svc-7' });
      expect(other.messages.some((m) => m.kind === 'runNow')).to.equal(false);
    });
  });

  describe('several replicas', () => {
    const agentOnEachOfTwoReplicas = async () => {
      const [one, two] = [hub('one'), hub('two')];
      const a = new FakeSession('a');
      const b = new FakeSession('b');
      await one.join(a);
      await two.join(b);
      await settled();
      return { one, two, a, b };
    };

    it('splits a location between agents connected to different replicas, each service to exactly one', async () => {
      const { one, two, a, b } = await agentOnEachOfTwoReplicas();
      const [ha, hb] = [a.held(), b.held()];
      expect(ha.size + hb.size).to.equal(40);
      expect([...ha].filter((id) => hb.has(id))).to.deep.equal([]);
      expect(ha.size).to.be.greaterThan(5);
      expect(hb.size).to.be.greaterThan(5);

      two.serviceUpserted(service('new', { configVersion: 1 }));
      one.serviceUpserted(service('new', { configVersion: 1 }));
      await settled();
      expect(Number(a.held().has('new')) + Number(b.held().has('new'))).to.equal(1);
    });

    it("moves a dead replica's services to the agents of the others once its lease is gone", async () => {
      const { one, a } = await agentOnEachOfTwoReplicas();
      sessions.alive.delete('two');
      await one.refresh();
      expect(a.held().size).to.equal(40);
    });

    it('ends a stream that a newer stream of the same agent replaced, elsewhere', async () => {
      const [one, two] = [hub('one'), hub('two')];
      const first = new FakeSession('a');
      await one.join(first);
      const again = new FakeSession('a');
      await two.join(again);
      await one.refresh();
      expect(first.ended).to.be.a('string');
      expect(again.held().size).to.equal(40);
      expect(one.onlineAgents()).to.equal(0);
    });

    it('ends the stream of an agent it could not record, so that the agent dials again', async () => {
      const broken = createAssignmentHub({
        listForLocation: async () => table,
        toAssignments: async (list) => list.map((s) => ({ serviceId: s.id, version: s.configVersion, checkType: s.checkType, endpoint: s.endpoint, intervalSeconds: s.checkIntervalSeconds, timeoutSeconds: s.timeoutSeconds, options: s.options })),
        sessions: { ...sessions.forReplica('one'), claim: async () => Promise.reject(new Error('database away')) },
        announce: async () => undefined,
        logger: createLogger('silent'),
      });
      const a = new FakeSession('a');
      await broken.join(a);
      expect(a.ended).to.be.a('string');
      expect(a.messages).to.deep.equal([]);
      expect(broken.onlineAgents()).to.equal(0);
    });

    it('reads every assignment again when asked for everything (missed messages)', async () => {
      const one = hub('one');
      const a = new FakeSession('a');
      await one.join(a);
      table = table.filter((s) => s.id !== 'svc-1' && s.id !== 'svc-2');
      table.push(service('svc-2', { configVersion: 9 }));
      await one.refresh({ everything: true });
      expect(a.held().has('svc-1')).to.equal(false);
      const upsert = a.messages.find((m) => m.kind === 'upsert');
      expect(upsert?.kind === 'upsert' && upsert.assignment).to.include({ serviceId: 'svc-2', version: 9 });
    });
  });
});
