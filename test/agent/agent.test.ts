import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { createAgent, type Agent, type AgentOptions } from '../../agent/src/agent.js';
import type { Probe, Prober, ProbeResult, ProbeTarget } from '../../agent/src/probers/prober.js';
import { createProberRegistry } from '../../agent/src/probers/registry.js';
import { DiskSpool } from '../../agent/src/spool/disk-spool.js';
import { readRecords } from '../../agent/src/spool/spool-records.js';
import type { Assignment } from '../../shared/src/gen/agent.js';
import { startFakeControlPlane, type FakeControlPlane } from '../fixtures/fake-control-plane.js';
import { poll } from '../support/poll.js';
import { decodeResults } from '../support/spooled-results.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Answers at once; numbers its probes so a result can be traced back to one probe. */
class CountingProber implements Prober {
  readonly family = 'TCP' as const;
  count = 0;
  failing = false;
  prepare(target: ProbeTarget): Probe {
    return () => this.probe(target);
  }
  private async probe(target: ProbeTarget): Promise<ProbeResult> {
    const n = ++this.count;
    return { ok: !this.failing, responseTimeMs: 2, message: `probe ${n} of ${target.endpoint}`, details: { connect_ms: 1 } };
  }
}

const assignment = (fields: Partial<Assignment> = {}): Assignment => ({
  serviceId: randomUUID(), version: 1, checkType: 'TCP', endpoint: '127.0.0.1:9', intervalSeconds: 3600, timeoutSeconds: 5, options: {}, ...fields,
});

describe('agent', function () {
  this.timeout(60_000);
  let cp: FakeControlPlane;
  let dataDir: string;
  let prober: CountingProber;
  const agents: Agent[] = [];
  const children: ChildProcess[] = [];

  const make = (options: Partial<AgentOptions> = {}) => {
    const agent = createAgent({
      server: cp.address,
      token: 'good-token',
      location: 'lab-1',
      dataDir,
      version: '9.9.9',
      registry: createProberRegistry([prober]),
      logger: pino({ level: 'silent' }),
      batchMaxDelayMs: 20,
      snapshotSpreadMs: 100,
      ...options,
    });
    agents.push(agent);
    return agent;
  };
  /** What a restart would find in the spool (only once the agent has stopped). */
  const leftInSpool = () => DiskSpool.open(path.join(dataDir, 'spool'), { maxBytes: 1024 * 1024, logger: pino({ level: 'silent' }) }).stats().results;

  beforeEach(async () => {
    cp = await startFakeControlPlane({ heartbeatIntervalSeconds: 1 });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'outpost-agent-'));
    prober = new CountingProber();
  });
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(agents.splice(0).map((a) => a.stop()));
    await cp.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('createAgent', () => {
    it('creates its agent id in <dataDir>/agent-id and keeps it across restarts', async () => {
      const first = make();
      const id = first.status().agentId;
      expect(id).to.match(UUID);
      expect(readFileSync(path.join(dataDir, 'agent-id'), 'utf8').trim()).to.equal(id);
      await first.stop();
      expect(make().status().agentId).to.equal(id);
      expect(make({ agentId: 'given' }).status().agentId).to.equal('given');
    });
  });

  describe('start', () => {
    it('says hello with its token, capabilities, location, version and hostname', async () => {
      const agent = make();
      await agent.start();
      await poll(() => agent.status().connected, { what: 'the welcome' });
      const capabilities = createProberRegistry([prober]).capabilities();
      expect(capabilities).to.include('TCP');
      expect(cp.hellos).to.deep.equal([{ agentId: agent.status().agentId, token: 'good-token', version: '9.9.9', location: 'lab-1', capabilities, hostname: os.hostname() }]);
      await poll(() => cp.heartbeats.length >= 1, { what: 'a heartbeat at the interval the welcome set' });
    });

    it("runs the snapshot's checks; the results are acknowledged and leave the spool", async () => {
      const services = [assignment({ endpoint: 'a:1', version: 3 }), assignment({ endpoint: 'b:1' }), assignment({ endpoint: 'c:1' })];
      for (const a of services) cp.assignments.set(a.serviceId, a);
      const agent = make();
      await agent.start();
      await poll(() => cp.stored.size === 3, { what: 'three results' });
      await poll(() => agent.status().spool.results === 0, { what: 'the acknowledged batches to leave the spool' });
      const stored = [...cp.stored.values()];
      expect(stored.map((r) => r.serviceId).sort()).to.deep.equal(services.map((a) => a.serviceId).sort());
      const a = stored.find((r) => r.serviceId === services[0]!.serviceId)!;
      expect(a).to.deep.include({ assignmentVersion: 3, ok: true, responseTimeMs: 2, adHoc: false, details: { connect_ms: 1 } });
      expect(a.message).to.match(/^probe \d of a:1$/);
      expect(a.id).to.match(UUID);
      expect(a.checkedAtMs).to.be.closeTo(Date.now(), 30_000);
      expect(agent.status()).to.deep.include({ connected: true, assignments: 3 });
      await agent.stop();
      expect(leftInSpool(), 'nothing to send again after a restart').to.equal(0);
    });

    it('follows upserts, removals and run-now requests on the stream', async () => {
      const kept = assignment({ endpoint: 'kept:1' });
      cp.assignments.set(kept.serviceId, kept);
      const agent = make();
      await agent.start();
      await poll(() => cp.stored.size === 1, { what: 'the first result' });
      const added = assignment({ endpoint: 'added:1' });
      cp.upsert(added);
      await poll(() => cp.stored.size === 2, { what: 'the upserted service to run at once' });
      cp.runNow(kept.serviceId);
      await poll(() => cp.stored.size === 3, { what: 'the ad-hoc run' });
      expect([...cp.stored.values()].map((r) => [r.serviceId, r.adHoc])).to.deep.equal([
        [kept.serviceId, false],
        [added.serviceId, false],
        [kept.serviceId, true],
      ]);
      cp.remove(added.serviceId, 1);
      await poll(() => agent.status().assignments === 1, { what: 'the removal' });
    });

    it('delivers every result exactly once by id when the control plane restarts mid-way', async () => {
      for (const endpoint of ['a:1', 'b:1']) {
        const a = assignment({ endpoint, intervalSeconds: 1 });
        cp.assignments.set(a.serviceId, a);
      }
      cp.autoAck = false;
      const agent = make();
      await agent.start();
      await poll(() => cp.batches.length >= 1, { what: 'a batch (not acknowledged)' });
      const unacknowledged = cp.batches.map((b) => b.batchId);
      await cp.stop();
      await poll(() => !agent.status().connected, { what: 'the disconnect' });
      const probedAtOutage = prober.count;
      await poll(() => prober.count >= probedAtOutage + 2, { what: 'checks during the outage' });
      cp.autoAck = true;
      await cp.restart();
      await poll(() => agent.status().connected && agent.status().spool.results === 0, { what: 'everything acknowledged after the restart', timeoutMs: 20_000 });
      await agent.stop();

      const resent = cp.batches.slice(unacknowledged.length).map((b) => b.batchId);
      expect(resent, 'unacknowledged batches are sent again under their own ids').to.include.members(unacknowledged);
      const stored = [...cp.stored.values()];
      expect(stored, 'no result lost').to.have.length(prober.count);
      expect(new Set(stored.map((r) => r.message)).size, 'no probe stored under two ids').to.equal(prober.count);
      expect(agent.status().spool).to.include({ batches: 0, results: 0, evictedResults: 0 });
    });

    it('re-sends unacknowledged results after being killed with SIGKILL and restarted on the same data dir', async () => {
      const services = [assignment({ endpoint: 'a:1' }), assignment({ endpoint: 'b:1' }), assignment({ endpoint: 'c:1' })];
      for (const a of services) cp.assignments.set(a.serviceId, a);
      cp.autoAck = false;
      const spawnAgent = (batchMaxDelayMs: number) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/agent-child.ts', cp.address, dataDir, String(batchMaxDelayMs)], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr!.on('data', (chunk) => (stderr += chunk));
        children.push(child);
        const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
        return { child, exited, stderr: () => stderr };
      };
      const byProcess = (pid: number | undefined) => [...cp.stored.values()].filter((r) => r.message === `probed by ${pid}`).map((r) => r.id);
      const spoolDir = path.join(dataDir, 'spool');
      /** The results after the last seal of each of the spool's segments: appended, not in a batch. */
      const unsealedIds = () => {
        const segments = existsSync(spoolDir) ? readdirSync(spoolDir).filter((f) => f.startsWith('segment-')).sort() : [];
        return segments.flatMap((f) => {
          let ids: string[] = [];
          for (const record of readRecords(readFileSync(path.join(spoolDir, f))).records) {
            if (record.kind === 'seal') ids = [];
            else if (record.kind === 'results') ids.push(...decodeResults(record.encoded).map((r) => r.id));
          }
          return ids;
        });
      };

      // 1: results sealed and sent, never acknowledged.
      const first = spawnAgent(20);
      await poll(() => byProcess(first.child.pid).length === 3, { what: 'the first process to send its results', timeoutMs: 30_000 });
      const sentBatchIds = cp.batches.map((b) => b.batchId);
      first.child.kill('SIGKILL');
      expect(await first.exited).to.equal('SIGKILL');

      // 2: results only appended to the spool, not sealed yet.
      const second = spawnAgent(600_000);
      await poll(() => unsealedIds().length === 3, { what: 'the second process to spool its results', timeoutMs: 30_000 });
      const unsealed = unsealedIds();
      second.child.kill('SIGKILL');
      expect(await second.exited).to.equal('SIGKILL');
      expect(unsealed.filter((id) => cp.stored.has(id)), 'unsealed results were never sent').to.deep.equal([]);

      // 3: acknowledged at last; everything from before the kills arrives.
      cp.autoAck = true;
      const third = spawnAgent(20);
      await poll(() => cp.stored.size === 9, { what: 'every result acknowledged', timeoutMs: 30_000 });
      expect(unsealed.every((id) => cp.stored.has(id)), 'the unsealed results arrive').to.equal(true);
      expect(cp.batches.slice(sentBatchIds.length).map((b) => b.batchId), 'sealed batches are sent again under their ids').to.include.members(sentBatchIds);
      expect(new Set(cp.hellos.map((h) => h.agentId)).size, 'one agent id across restarts').to.equal(1);
      expect(byProcess(third.child.pid)).to.have.length(3);
      third.child.kill('SIGTERM');
      expect(await third.exited, third.stderr()).to.equal(0);
      expect(leftInSpool(), 'nothing to send again after a restart').to.equal(0);
    });

    it('stops for good, with the reason, when the control plane answers UNAUTHENTICATED', async () => {
      cp.assignments.set('x', assignment());
      const reasons: string[] = [];
      const agent = make({ token: 'revoked', onFatal: (reason) => reasons.push(reason) });
      await agent.start();
      await poll(() => reasons.length === 1, { what: 'the fatal refusal' });
      expect(reasons).to.deep.equal(['UNAUTHENTICATED: invalid agent token']);
      expect(agent.status()).to.deep.include({ connected: false, assignments: 0, fatal: 'UNAUTHENTICATED: invalid agent token' });
      expect(prober.count).to.equal(0);
    });
  });

  describe('batches', () => {
    it('sends a first result and a failure within the urgent delay, and holds steady GREEN results for the batch delay', async () => {
      const a = assignment({ intervalSeconds: 1 });
      cp.assignments.set(a.serviceId, a);
      const agent = make({ batchMaxDelayMs: 600_000, batchUrgentDelayMs: 20 });
      await agent.start();
      await poll(() => cp.stored.size === 1, { what: 'the first result' });
      await poll(() => agent.status().spool.results === 0, { what: 'the first result acknowledged' });
      await poll(() => agent.status().spool.results === 1, { what: 'a second, steady result held in the spool' });
      expect(prober.count).to.equal(2);
      expect(cp.stored.size).to.equal(1);
      prober.failing = true;
      await poll(() => [...cp.stored.values()].some((r) => !r.ok), { what: 'the failure' });
      const stored = [...cp.stored.values()].sort((x, y) => x.checkedAtMs - y.checkedAtMs);
      expect(stored.map((r) => r.ok)).to.deep.equal([true, true, false]);
    });
  });

  describe('stop', () => {
    it('sends what is still batching and waits for its acknowledgement before closing the stream', async () => {
      const a = assignment();
      cp.assignments.set(a.serviceId, a);
      const agent = make({ batchMaxDelayMs: 600_000, batchUrgentDelayMs: 600_000 });
      await agent.start();
      await poll(() => agent.status().spool.results === 1, { what: 'the result in the spool' });
      expect(cp.stored.size, 'held back by the batch delay').to.equal(0);
      await agent.stop();
      expect(cp.stored.size).to.equal(1);
      expect(agent.status().spool.results).to.equal(0);
      await poll(() => cp.openStreams() === 0, { what: 'the stream to close' });
    });
  });
});
