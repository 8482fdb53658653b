import { expect } from 'chai';
import { pino } from 'pino';
import type { Probe, Prober, ProbeResult, ProbeTarget } from '../../../agent/src/probers/prober.js';
import { createProberRegistry } from '../../../agent/src/probers/registry.js';
import { createScheduler, type Assignment, type CompletedRun, type Scheduler } from '../../../agent/src/scheduler/scheduler.js';
import { nextSlot, offsetMs } from '../../../agent/src/scheduler/slots.js';
import { poll } from '../../support/poll.js';

/** A TCP "prober" whose runs the test releases by hand, or at once when `instant`. */
class GatedProber implements Prober {
  readonly family = 'TCP' as const;
  active = 0;
  maxActive = 0;
  started: ProbeTarget[] = [];
  /** What the next results say, over a passed check in 1 ms. */
  outcome: Partial<ProbeResult> = {};
  private gates: (() => void)[] = [];
  constructor(private readonly instant = false) {}
  prepare(target: ProbeTarget): Probe {
    return () => this.probe(target);
  }
  private probe(target: ProbeTarget): Promise<ProbeResult> {
    this.started.push(target);
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    return new Promise((resolve) => {
      const finish = () => {
        this.active--;
        resolve({ ok: true, responseTimeMs: 1, message: `ran ${target.endpoint}`, details: {}, ...this.outcome });
      };
      if (this.instant) finish();
      else this.gates.push(finish);
    });
  }
  releaseAll() {
    for (const open of this.gates.splice(0)) open();
  }
}

const assignment = (fields: Partial<Assignment> = {}): Assignment => ({
  serviceId: 'svc-1', version: 1, checkType: 'TCP', endpoint: '127.0.0.1:1', intervalSeconds: 3600, timeoutSeconds: 5, options: {}, ...fields,
});

describe('scheduler', () => {
  let prober: GatedProber;
  let runs: CompletedRun[];
  let scheduler: Scheduler;
  const make = (options: { instant?: boolean; maxConcurrentChecks?: number; maxQueuedChecks?: number; snapshotSpreadMs?: number; stopWaitMs?: number } = {}) => {
    prober = new GatedProber(options.instant);
    scheduler = createScheduler({
      registry: createProberRegistry([prober]),
      onResult: (r) => runs.push(r),
      logger: pino({ level: 'silent' }),
      maxConcurrentChecks: options.maxConcurrentChecks,
      maxQueuedChecks: options.maxQueuedChecks,
      snapshotSpreadMs: options.snapshotSpreadMs,
      stopWaitMs: options.stopWaitMs,
    });
    return scheduler;
  };
  beforeEach(() => {
    runs = [];
    make();
  });
  afterEach(async () => {
    prober.releaseAll();
    await scheduler.stop();
  });

  describe('upsert', () => {
    it('runs a new assignment at once, with its settings and hard timeout', async () => {
      scheduler.upsert(assignment({ endpoint: '127.0.0.1:7', timeoutSeconds: 3, options: { tls: false } }));
      await poll(() => prober.started.length === 1, { what: 'the first run' });
      expect(prober.started[0]).to.deep.include({ checkType: 'TCP', endpoint: '127.0.0.1:7', timeoutMs: 3_000, options: { tls: false } });
      prober.releaseAll();
      await poll(() => runs.length === 1, { what: 'the result' });
      expect(runs[0]).to.deep.include({ adHoc: false, result: { ok: true, responseTimeMs: 1, message: 'ran 127.0.0.1:7', details: {} } });
      expect(runs[0]!.assignment.version).to.equal(1);
      expect(runs[0]!.checkedAt).to.be.closeTo(Date.now(), 5_000);
    });

    it('runs again every interval, on the slot derived from the service id', async () => {
      make({ instant: true });
      const interval = 1_000;
      scheduler.upsert(assignment({ intervalSeconds: 1 }));
      await poll(() => runs.length >= 3, { what: 'three runs', timeoutMs: 8_000 });
      const [first, second, third] = runs;
      expect(first!.latenessMs, 'the first run is at once, not on a slot').to.be.at.most(100);
      // A slot is `offset + k * interval`; a timer may fire a millisecond early.
      const [slot2, slot3] = [second!, third!].map((run) => run.checkedAt - run.latenessMs!);
      for (const slot of [slot2!, slot3!]) {
        const phase = (((slot - offsetMs('svc-1', interval)) % interval) + interval) % interval;
        expect(Math.min(phase, interval - phase), `${slot} is on the service's slot`).to.be.at.most(2);
      }
      expect(slot3! - slot2!).to.be.closeTo(interval, 2);
    });

    it('ignores an upsert not newer than what it holds, and reruns a newer one at once with the new settings', async () => {
      scheduler.upsert(assignment({ version: 2, endpoint: '127.0.0.1:2' }));
      await poll(() => prober.started.length === 1, { what: 'the first run' });
      prober.releaseAll();
      await poll(() => runs.length === 1, { what: 'the first result' });
      scheduler.upsert(assignment({ version: 1, endpoint: '127.0.0.1:1' }));
      scheduler.upsert(assignment({ version: 2, endpoint: '127.0.0.1:1' }));
      scheduler.upsert(assignment({ version: 3, endpoint: '127.0.0.1:3' }));
      await poll(() => prober.started.length === 2, { what: 'the rerun' });
      expect(prober.started.map((t) => t.endpoint)).to.deep.equal(['127.0.0.1:2', '127.0.0.1:3']);
    });

    it('runs a check changed during a run once that run ends, with the new settings only', async () => {
      scheduler.upsert(assignment({ version: 1, endpoint: 'old:1' }));
      await poll(() => prober.started.length === 1, { what: 'the first run' });
      scheduler.upsert(assignment({ version: 2, endpoint: 'new:1' }));
      expect(prober.active, 'no second run while the first is going').to.equal(1);
      prober.releaseAll();
      await poll(() => prober.started.length === 2, { what: 'the run with the new settings' });
      prober.releaseAll();
      await poll(() => runs.length === 2, { what: 'both results' });
      expect(runs.map((r) => [r.assignment.version, r.result.message])).to.deep.equal([
        [1, 'ran old:1'],
        [2, 'ran new:1'],
      ]);
      expect(prober.maxActive).to.equal(1);
    });
  });

  describe('runNow', () => {
    it('never runs one service twice at once, and queues one run-now during a run', async () => {
      scheduler.upsert(assignment());
      await poll(() => prober.started.length === 1, { what: 'the first run' });
      scheduler.runNow('svc-1');
      scheduler.runNow('svc-1');
      expect(prober.active).to.equal(1);
      prober.releaseAll();
      await poll(() => prober.started.length === 2, { what: 'the queued run-now' });
      prober.releaseAll();
      await poll(() => runs.length === 2, { what: 'both results' });
      expect(prober.maxActive).to.equal(1);
      expect(runs.map((r) => r.adHoc)).to.deep.equal([false, true]);
      expect(runs[1]!.latenessMs).to.equal(null);
    });

    it('ignores a service it does not hold', () => {
      scheduler.runNow('unknown');
      expect(prober.started).to.deep.equal([]);
    });
  });

  describe('remove', () => {
    it('stops running a removed service, and ignores a removal older than what it holds', async () => {
      scheduler.upsert(assignment({ serviceId: 'a', version: 5, endpoint: 'a:1' }));
      await poll(() => prober.started.length === 1, { what: 'the first run' });
      prober.releaseAll();
      await poll(() => runs.length === 1, { what: 'the result' });
      scheduler.remove('a', 4);
      expect(scheduler.size(), 'an older removal is ignored').to.equal(1);
      scheduler.remove('a', 5);
      expect(scheduler.size()).to.equal(0);
      scheduler.runNow('a'); // a run would start synchronously: none may
      expect(prober.started).to.have.length(1);
    });

    it('lets a run going at removal finish without a later run, and a re-added service waits for it', async () => {
      scheduler.upsert(assignment({ version: 1, endpoint: 'old:1' }));
      await poll(() => prober.started.length === 1, { what: 'the first run' });
      scheduler.runNow('svc-1');
      scheduler.remove('svc-1', 1);
      expect(scheduler.size()).to.equal(0);
      scheduler.upsert(assignment({ version: 2, endpoint: 'new:1' }));
      expect(scheduler.size()).to.equal(1);
      expect(prober.active, 're-added while the old run goes on: it waits').to.equal(1);
      prober.releaseAll();
      await poll(() => prober.started.length === 2, { what: 'the re-added run' });
      prober.releaseAll();
      await poll(() => runs.length === 2, { what: 'both results' });
      expect(prober.started.map((t) => t.endpoint)).to.deep.equal(['old:1', 'new:1']);
      expect(prober.maxActive).to.equal(1);
    });

    it('never probes a removed service whose run was still waiting for a free slot', async () => {
      make({ maxConcurrentChecks: 1 });
      scheduler.upsert(assignment({ serviceId: 'a', endpoint: 'a:1' }));
      scheduler.upsert(assignment({ serviceId: 'b', endpoint: 'b:1' }));
      await poll(() => prober.started.length === 1, { what: 'the first run' });
      scheduler.remove('b', 1);
      prober.releaseAll();
      await poll(() => runs.length === 1, { what: 'the first result' });
      scheduler.upsert(assignment({ serviceId: 'c', endpoint: 'c:1' }));
      await poll(() => prober.started.length === 2, { what: 'the next run' });
      expect(prober.started.map((t) => t.endpoint)).to.deep.equal(['a:1', 'c:1']);
    });
  });

  describe('replaceAll', () => {
    it('spreads a fresh scheduler\'s snapshot: each service first runs on its slot, none at once', async () => {
      make({ instant: true, snapshotSpreadMs: 1_000 });
      const ids = Array.from({ length: 20 }, (_, i) => `s${i}`);
      const before = Date.now();
      scheduler.replaceAll(ids.map((serviceId) => assignment({ serviceId })));
      expect(prober.started, 'nothing fired at once').to.deep.equal([]);
      await poll(() => runs.length === 20, { what: 'every first run', timeoutMs: 5_000 });
      for (const run of runs) {
        const slot = run.checkedAt - run.latenessMs!;
        // A timer may fire a millisecond early (then lateness reads 0).
        expect(slot - before, `${run.assignment.serviceId} within the spread window`).to.be.within(-2, 1_002);
        const phase = (((slot - offsetMs(run.assignment.serviceId, 3_600_000)) % 1_000) + 1_000) % 1_000;
        expect(Math.min(phase, 1_000 - phase), 'on its slot within the window').to.be.at.most(2);
      }
      expect(new Set(runs.map((r) => r.checkedAt - r.latenessMs!)).size, 'spread, not together').to.be.greaterThan(15);
    });

    it('makes a snapshot everything held: new services run, missing ones stop, unchanged ones keep their schedule', async () => {
      scheduler.upsert(assignment({ serviceId: 'a', endpoint: 'a:1' }));
      scheduler.replaceAll([assignment({ serviceId: 'a', endpoint: 'a:1' }), assignment({ serviceId: 'b', endpoint: 'b:1' })]);
      await poll(() => prober.started.length === 2, { what: 'both first runs' });
      prober.releaseAll();
      await poll(() => runs.length === 2, { what: 'both results' });
      scheduler.replaceAll([assignment({ serviceId: 'b', endpoint: 'b:1' }), assignment({ serviceId: 'c', endpoint: 'c:1' })]);
      scheduler.runNow('a');
      expect(prober.started.map((t) => t.endpoint)).to.deep.equal(['a:1', 'b:1', 'c:1']);
      expect(scheduler.size()).to.equal(2);
    });

    it('runs no more probes at once than its concurrency cap', async () => {
      make({ maxConcurrentChecks: 3, maxQueuedChecks: 20 });
      for (let i = 0; i < 20; i++) scheduler.upsert(assignment({ serviceId: `s${i}`, endpoint: `h${i}:1` }));
      for (let round = 0; round < 20 && runs.length < 20; round++) {
        await poll(() => prober.active === Math.min(3, 20 - runs.length), { what: `a full window in round ${round}` });
        const done = runs.length + prober.active;
        prober.releaseAll();
        await poll(() => runs.length === done, { what: `the results of round ${round}` });
      }
      expect(runs).to.have.length(20);
      expect(prober.maxActive).to.equal(3);
    });
  });

  describe('back-pressure', () => {
    it('skips and counts a run that finds the queue for a free place full, and runs it once there is room', async () => {
      make({ maxConcurrentChecks: 1, maxQueuedChecks: 1 });
      for (const id of ['a', 'b', 'c']) scheduler.upsert(assignment({ serviceId: id, endpoint: `${id}:1` }));
      expect(prober.started.map((t) => t.endpoint), 'one running, one waiting').to.deep.equal(['a:1']);
      expect(scheduler.skippedRuns()).to.equal(1);
      prober.releaseAll();
      await poll(() => prober.started.length === 2, { what: 'the waiting run' });
      prober.releaseAll();
      await poll(() => runs.length === 2, { what: 'both results' });
      expect(prober.started.map((t) => t.endpoint)).to.deep.equal(['a:1', 'b:1']);
      scheduler.runNow('c');
      await poll(() => prober.started.length === 3, { what: 'the skipped service, once there is room' });
    });

    it('measures lateness from the planned slot to the start after the wait for a place', async () => {
      make({ maxConcurrentChecks: 1 });
      scheduler.upsert(assignment({ serviceId: 'a', endpoint: 'a:1' }));
      scheduler.upsert(assignment({ serviceId: 'b', endpoint: 'b:1' }));
      await new Promise((resolve) => setTimeout(resolve, 60));
      prober.releaseAll();
      await poll(() => prober.started.length === 2, { what: 'the waiting run' });
      prober.releaseAll();
      await poll(() => runs.length === 2, { what: 'both results' });
      expect(runs[1]!.latenessMs, 'b waited for a').to.be.at.least(50);
    });
  });

  it('gives each result its status, and says when it changed: the first, a change, the first after the check changed', async () => {
    make({ instant: true });
    const runAndWait = async (run: () => void) => {
      const before = runs.length;
      run();
      await poll(() => runs.length === before + 1, { what: `result ${before + 1}` });
    };
    await runAndWait(() => scheduler.upsert(assignment()));
    await runAndWait(() => scheduler.runNow('svc-1'));
    prober.outcome = { ok: false };
    await runAndWait(() => scheduler.runNow('svc-1'));
    prober.outcome = { responseTimeMs: 1500 };
    await runAndWait(() => scheduler.runNow('svc-1'));
    await runAndWait(() => scheduler.runNow('svc-1'));
    await runAndWait(() => scheduler.upsert(assignment({ version: 2 })));
    expect(runs.map((r) => [r.status, r.statusChanged])).to.deep.equal([
      ['GREEN', true],
      ['GREEN', false],
      ['RED', true],
      ['YELLOW', true],
      ['YELLOW', false],
      ['YELLOW', true],
    ]);
  });

  it('reports an unknown check type as not supported by this agent version', async () => {
    scheduler.upsert(assignment({ checkType: 'CARRIER_PIGEON' }));
    await poll(() => runs.length === 1, { what: 'the result' });
    expect(runs[0]?.result).to.include({ ok: false, message: 'check type CARRIER_PIGEON is not supported by this agent version' });
  });

  it('logs a result it could not hand on and frees its place: the service and the others keep running', async () => {
    const logged: string[] = [];
    let refuse = true;
    scheduler = createScheduler({
      registry: createProberRegistry([(prober = new GatedProber(true))]),
      onResult: (r) => {
        if (refuse) throw new Error('spool gone');
        runs.push(r);
      },
      logger: pino({ level: 'error' }, { write: (line: string) => logged.push(JSON.parse(line).msg) }),
      maxConcurrentChecks: 1,
    });
    scheduler.upsert(assignment({ serviceId: 'a', endpoint: 'a:1' }));
    await poll(() => logged.length === 1, { what: 'the error logged' });
    expect(logged).to.deep.equal(['publishing a result failed']);
    refuse = false;
    scheduler.runNow('a');
    scheduler.upsert(assignment({ serviceId: 'b', endpoint: 'b:1' }));
    await poll(() => runs.length === 2, { what: 'both services run in the one place' });
    expect(runs.map((r) => r.assignment.serviceId).sort()).to.deep.equal(['a', 'b']);
  });

  describe('stop', () => {
    it('waits for a running probe and starts nothing afterwards', async () => {
      scheduler.replaceAll([assignment({ serviceId: 'a', endpoint: 'a:1', intervalSeconds: 1 })]);
      await poll(() => prober.started.length === 1, { what: 'the first run' });
      let stopped = false;
      const stopping = scheduler.stop().then(() => (stopped = true));
      scheduler.runNow('a');
      scheduler.upsert(assignment({ serviceId: 'b', endpoint: 'b:1' }));
      expect(stopped, 'still waiting for the running probe').to.equal(false);
      prober.releaseAll();
      await stopping;
      expect(runs).to.have.length(1);
      expect(prober.started).to.have.length(1);
    });

    it('gives up waiting for a probe after its bound', async () => {
      make({ stopWaitMs: 50 });
      scheduler.upsert(assignment());
      await poll(() => prober.started.length === 1, { what: 'the first run' });
      await scheduler.stop();
      expect(prober.active, 'the probe is still held by the test').to.equal(1);
    });
  });
});

describe('slots', () => {
  describe('offsetMs', () => {
    it('spreads services with the same interval over it', () => {
      const offsets = Array.from({ length: 50 }, (_, i) => offsetMs(`service-${i}`, 60_000));
      expect(new Set(offsets).size).to.be.greaterThan(45);
      expect(offsets.every((o) => o >= 0 && o < 60_000)).to.equal(true);
      expect(offsetMs('service-1', 60_000), 'stable for a service').to.equal(offsets[1]);
    });
  });

  describe('nextSlot', () => {
    it('gives the first slot at or after a time', () => {
      expect(nextSlot(1_000, 600, 100)).to.equal(1_300);
      expect(nextSlot(1_300, 600, 100)).to.equal(1_300);
    });
  });
});
