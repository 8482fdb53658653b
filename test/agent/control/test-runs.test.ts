import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { pino } from 'pino';
import { createTestRunner, type TestRunner } from '../../../agent/src/control/test-runs.js';
import type { Probe, Prober, ProbeResult, ProbeTarget } from '../../../agent/src/probers/prober.js';
import { createProberRegistry } from '../../../agent/src/probers/registry.js';
import type { AgentMessage, Assignment, CheckResult } from '../../../shared/src/gen/agent.js';
import { poll } from '../../support/poll.js';

/** A TCP "prober" answering what the test sets, at once or when the test opens its gate. */
class ScriptedProber implements Prober {
  readonly family = 'TCP' as const;
  outcome: Partial<ProbeResult> = {};
  gated = false;
  started: ProbeTarget[] = [];
  private gates: (() => void)[] = [];
  prepare(target: ProbeTarget): Probe {
    return () => {
      this.started.push(target);
      const result = { ok: true, responseTimeMs: 5, message: `connected to ${target.endpoint}`, details: { connect_ms: 5 }, ...this.outcome };
      if (!this.gated) return Promise.resolve(result);
      return new Promise((resolve) => this.gates.push(() => resolve(result)));
    };
  }
  openGates() {
    for (const open of this.gates.splice(0)) open();
  }
}

const assignment = (fields: Partial<Assignment> = {}): Assignment => ({
  serviceId: randomUUID(), version: 0, checkType: 'TCP', endpoint: '127.0.0.1:9', intervalSeconds: 60, timeoutSeconds: 5, options: {}, ...fields,
});

describe('test runs (agent)', () => {
  let prober: ScriptedProber;
  let sent: AgentMessage[];
  /** Every message handed to send(), sent or not. */
  let tried: AgentMessage[];
  let connected: boolean;
  let runTest: TestRunner;

  beforeEach(() => {
    prober = new ScriptedProber();
    sent = [];
    tried = [];
    connected = true;
    runTest = createTestRunner({
      registry: createProberRegistry([prober]),
      send: (message) => {
        tried.push(message);
        return connected && sent.push(message) > 0;
      },
      logger: pino({ level: 'silent' }),
      maxRunning: 2,
    });
  });

  /** The result sent for `requestId`, once it is. */
  const resultFor = async (requestId: string): Promise<CheckResult> => {
    const message = await poll(() => sent.find((m) => m.payload?.$case === 'testResult' && m.payload.value.requestId === requestId), { what: `the result of ${requestId}` });
    if (message.payload?.$case !== 'testResult' || !message.payload.value.result) throw new Error('not a test result');
    return message.payload.value.result;
  };

  describe('createTestRunner', () => {
    it('runs the check once and sends its result under the request id, judged as the scheduler judges a run', async () => {
      const a = assignment();
      const before = Date.now();
      runTest({ requestId: 'r1', assignment: a });
      const result = await resultFor('r1');
      expect(prober.started.map((t) => t.endpoint)).to.deep.equal(['127.0.0.1:9']);
      expect(result).to.include({ serviceId: a.serviceId, assignmentVersion: 0, ok: true, degraded: false, speedJudged: true, adHoc: true, responseTimeMs: 5, message: 'connected to 127.0.0.1:9' });
      expect(result.details).to.deep.equal({ connect_ms: 5 });
      expect(result.checkedAtMs).to.be.within(before, Date.now());
    });

    it("says degraded when the check passed slower than the check's own degraded_after_ms, and not when faster", async () => {
      prober.outcome = { responseTimeMs: 1500 };
      runTest({ requestId: 'default-line', assignment: assignment() });
      runTest({ requestId: 'own-line', assignment: assignment({ options: { degraded_after_ms: 2000 } }) });
      expect((await resultFor('default-line')).degraded, 'over the 1,000 ms line').to.equal(true);
      expect((await resultFor('own-line')).degraded, 'under its own 2,000 ms line').to.equal(false);
    });

    it('sends a failed check as a failed result with its message', async () => {
      prober.outcome = { ok: false, message: 'connection refused' };
      runTest({ requestId: 'r2', assignment: assignment() });
      expect(await resultFor('r2')).to.include({ ok: false, degraded: false, message: 'connection refused' });
    });

    it('answers a check it cannot run, or a run without a check, with a failed result instead of throwing', async () => {
      expect(() => runTest({ requestId: 'unknown', assignment: assignment({ checkType: 'GOPHER' }) })).to.not.throw();
      runTest({ requestId: 'empty', assignment: undefined });
      runTest({ requestId: 'no-prober', assignment: assignment({ checkType: 'HTTP', endpoint: 'http://127.0.0.1:9/' }) });
      expect(await resultFor('unknown')).to.include({ ok: false, message: 'check type GOPHER is not supported by this agent version' });
      expect(await resultFor('empty')).to.include({ ok: false, message: 'the test run came without a check' });
      expect((await resultFor('no-prober')).ok).to.equal(false);
      expect(prober.started).to.have.length(0);
    });

    it('refuses a run beyond its limit with a failed result, and takes runs again once one ends', async () => {
      prober.gated = true;
      runTest({ requestId: 'first', assignment: assignment() });
      runTest({ requestId: 'second', assignment: assignment() });
      runTest({ requestId: 'third', assignment: assignment() });
      expect(await resultFor('third')).to.include({ ok: false, message: 'the agent is already running 2 test checks; try again shortly' });
      expect(prober.started).to.have.length(2);
      prober.openGates();
      await resultFor('first');
      await resultFor('second');
      runTest({ requestId: 'fourth', assignment: assignment() });
      prober.openGates();
      expect((await resultFor('fourth')).ok).to.equal(true);
    });

    it('sends nothing for a run without a request id, and drops a result finished while disconnected', async () => {
      runTest({ requestId: '', assignment: assignment() });
      connected = false;
      runTest({ requestId: 'offline', assignment: assignment() });
      await poll(() => tried.length === 1, { what: 'the result of the offline run' });
      connected = true;
      runTest({ requestId: 'online', assignment: assignment() });
      await resultFor('online');
      expect(sent.map((m) => m.payload?.$case === 'testResult' && m.payload.value.requestId)).to.deep.equal(['online']);
    });
  });
});
