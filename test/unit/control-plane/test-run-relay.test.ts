import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { ClusterBus } from '../../../control-plane/src/cluster/cluster-bus.js';
import type { ClusterMessage } from '../../../control-plane/src/cluster/cluster-message.js';
import { createParcels } from '../../../control-plane/src/cluster/parcels.js';
import { createTestRunRelay } from '../../../control-plane/src/cluster/test-run-relay.js';
import { keyringFromKeys, newDataKey } from '../../../control-plane/src/crypto/keyring.js';
import { createSecretBox, type SecretBox } from '../../../control-plane/src/crypto/secret-box.js';
import type { RemoteTestRunner, TestRunOutcome, TestRunRequest } from '../../../control-plane/src/features/agents/test-runs.js';
import { createLogger } from '../../../control-plane/src/logger.js';

type Handler = (message: ClusterMessage) => void;

/** The bus of several replicas in memory: a message reaches every other replica on a later turn, in order unless `reverse` holds them. */
class FakeCluster {
  readonly handlers = new Map<string, Map<string, Handler[]>>();
  readonly published: ClusterMessage[] = [];
  /** Holds messages back and delivers them last first at release(). */
  reverse = false;
  private held: [string, ClusterMessage][] = [];

  bus(replicaId: string): ClusterBus {
    const mine = new Map<string, Handler[]>();
    this.handlers.set(replicaId, mine);
    return {
      replicaId,
      publish: async (message: ClusterMessage) => {
        this.published.push(message);
        if (this.reverse) this.held.push([replicaId, message]);
        else queueMicrotask(() => this.deliver(replicaId, message));
      },
      on: (kind: string, handler: Handler) => void mine.set(kind, [...(mine.get(kind) ?? []), handler]),
    } as unknown as ClusterBus;
  }

  release(): void {
    for (const [from, message] of this.held.splice(0).reverse()) this.deliver(from, message);
  }

  private deliver(from: string, message: ClusterMessage): void {
    for (const [replica, kinds] of this.handlers) if (replica !== from) for (const handler of kinds.get(message.k) ?? []) handler(message);
  }
}

const logger = createLogger('silent');
const request = (fields: Partial<TestRunRequest> = {}): TestRunRequest => ({
  sessionId: randomUUID(),
  organizationId: randomUUID(),
  assignment: { serviceId: randomUUID(), version: 0, checkType: 'HTTP', endpoint: 'http://127.0.0.1:9/', intervalSeconds: 60, timeoutSeconds: 1, options: {} },
  timeoutMs: 500,
  ...fields,
});
const answered = (message: string): TestRunOutcome => ({
  answered: true,
  report: { agentId: 'agent-b', ok: true, degraded: false, speedJudged: true, responseTimeMs: 3, message, details: { status_code: 200 }, checkedAtMs: 1_700_000_000_000 },
});

describe('test run relay', () => {
  let cluster: FakeCluster;
  let box: SecretBox;
  /** What replica B's gateway was asked to run. */
  let ranOnB: TestRunRequest[];

  const replica = (id: string, runLocally = async (_: TestRunRequest): Promise<TestRunOutcome> => ({ answered: false, reason: 'no agent here' }), secrets = box) =>
    createTestRunRelay({ parcels: createParcels(cluster.bus(id), secrets, logger), runLocally, logger });

  let askFromA: RemoteTestRunner;
  beforeEach(() => {
    cluster = new FakeCluster();
    box = createSecretBox(keyringFromKeys([newDataKey()]));
    ranOnB = [];
    askFromA = replica('a');
    replica('b', async (r) => {
      ranOnB.push(r);
      return answered(`ran ${r.assignment.endpoint}`);
    });
  });

  describe('createTestRunRelay', () => {
    it('runs a request on the replica holding the agent and brings its outcome back', async () => {
      const sent = request();
      const outcome = await askFromA('b', sent);
      expect(ranOnB).to.deep.equal([sent]);
      expect(outcome).to.deep.equal(answered('ran http://127.0.0.1:9/'));
    });

    it('joins a request cut into several parts, whatever order the parts come in', async () => {
      const sent = request({ assignment: { ...request().assignment, options: { body: 'x'.repeat(20_000) } } });
      cluster.reverse = true;
      const outcome = askFromA('b', sent);
      await new Promise(setImmediate);
      const parts = cluster.published.filter((m) => m.k === 'test-run');
      expect(parts.length).to.be.greaterThan(1);
      cluster.reverse = false;
      cluster.release();
      expect((await outcome).answered).to.equal(true);
      expect(ranOnB).to.deep.equal([sent]);
    });

    it('seals what travels: no part shows the options', async () => {
      await askFromA('b', request({ assignment: { ...request().assignment, options: { password: 'hunter2' } } }));
      expect(JSON.stringify(cluster.published)).to.not.contain('hunter2');
    });

    it('takes an outcome only from the replica it asked, and gives up at the timeout', async () => {
      cluster = new FakeCluster();
      const ask = replica('a');
      replica('b', () => new Promise(() => undefined)); // its agent never answers
      const impostor = createParcels(cluster.bus('c'), box, logger);
      const outcome = ask('b', request({ timeoutMs: 200 }));
      await new Promise(setImmediate);
      const asked = cluster.published.find((m) => m.k === 'test-run')!;
      await impostor.send('test-result', 'a', asked.id, answered('forged'));
      const result = await outcome;
      expect(result.answered).to.equal(false);
      expect(!result.answered && result.reason).to.match(/^no agent answered within/);
    });

    it('refuses a parcel replayed under another id, one that holds no request, and one sealed with a key the replica does not hold', async () => {
      await askFromA('b', request());
      const [part] = cluster.published.filter((m) => m.k === 'test-run');
      const replay = createParcels(cluster.bus('c'), box, logger);
      // The same sealed bytes under a fresh id: B must not run them again.
      await cluster.bus('d').publish({ ...part!, id: randomUUID() } as ClusterMessage);
      await replay.send('test-run', 'b', randomUUID(), { not: 'a request' });
      await createParcels(cluster.bus('e'), createSecretBox(keyringFromKeys([newDataKey()])), logger).send('test-run', 'b', randomUUID(), request());
      await new Promise(setImmediate);
      expect(ranOnB).to.have.length(1);
    });
  });
});
