import { expect } from 'chai';
import { pino } from 'pino';
import type { Prober, ProbeResult, ProbeTarget } from '../../../agent/src/probers/prober.js';
import { createProberRegistry } from '../../../agent/src/probers/registry.js';
import { createScheduler, type Assignment, type CompletedRun } from '../../../agent/src/scheduler/scheduler.js';
import { nextSlot, offsetMs } from '../../../agent/src/scheduler/slots.js';
import { poll } from '../../support/poll.js';

/** A TCP "prober" whose runs the test releases by hand. */
class GatedProber implements Prober {
  readonly family = 'TCP' as const;
  active = 0;
  maxActive = 0;
  started: ProbeTarget[] = [];
  private gates: (() => void)[] = [];
  probe(target: ProbeTarget): Promise<ProbeResult> {
    this.started.push(target);
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    return new Promise((resolve) =>
      this.gates.push(() => {
        this.active--;
        resolve({ ok: true, responseTimeMs: 1, message: 'ok', details: {} });
      }),
    );
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
  let scheduler: ReturnType<typeof createScheduler>;
  beforeEach(() => {
    prober = new GatedProber();
    runs = [];
    scheduler = createScheduler({ registry: createProberRegistry([prober]), onResult: (r) => runs.push(r), logger: pino({ level: 'silent' }) });
  });
  afterEach(async () => {
    prober.releaseAll();
    await scheduler.stop();
  });

  it('runs a new assignment at once', async () => {
    scheduler.upsert(assignment());
    await poll(() => prober.started.length === 1, { what: 'the first run' });
    prober.releaseAll();
    await poll(() => runs.length === 1, { what: 'the result' });
    expect(runs[0]).to.include({ adHoc: false });
  });

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
  });

  it('ignores an upsert older than what it holds, and reruns a newer one with the new settings', async () => {
    scheduler.upsert(assignment({ version: 2, endpoint: '127.0.0.1:2' }));
    await poll(() => prober.started.length === 1, { what: 'the first run' });
    prober.releaseAll();
    scheduler.upsert(assignment({ version: 1, endpoint: '127.0.0.1:1' }));
    scheduler.upsert(assignment({ version: 3, endpoint: '127.0.0.1:3' }));
    await poll(() => prober.started.length === 2, { what: 'the rerun' });
    expect(prober.started.map((t) => t.endpoint)).to.deep.equal(['127.0.0.1:2', '127.0.0.1:3']);
  });

  it('stops running a removed service, and a snapshot replaces everything held', async () => {
    scheduler.replaceAll([assignment({ serviceId: 'a', endpoint: 'a:1' }), assignment({ serviceId: 'b', endpoint: 'b:1' })]);
    await poll(() => prober.started.length === 2, { what: 'both first runs' });
    prober.releaseAll();
    await poll(() => runs.length === 2, { what: 'both results' });
    scheduler.remove('a', 1);
    scheduler.runNow('a'); // a run would start synchronously: none may
    scheduler.replaceAll([assignment({ serviceId: 'c', endpoint: 'c:1' })]);
    scheduler.runNow('b');
    expect(prober.started.map((t) => t.endpoint)).to.deep.equal(['a:1', 'b:1', 'c:1']);
    expect(scheduler.size()).to.equal(1);
  });

  it('reports an unknown check type as not supported by this agent version', async () => {
    scheduler.upsert(assignment({ checkType: 'CARRIER_PIGEON' }));
    await poll(() => runs.length === 1, { what: 'the result' });
    expect(runs[0]?.result).to.include({ ok: false, message: 'check type CARRIER_PIGEON is not supported by this agent version' });
  });
});

describe('slots', () => {
  it('spreads services with the same interval over it', () => {
    const offsets = new Set(Array.from({ length: 50 }, (_, i) => offsetMs(`service-${i}`, 60_000)));
    expect(offsets.size).to.be.greaterThan(45);
  });

  it('gives the first slot at or after a time', () => {
    expect(nextSlot(1_000, 600, 100)).to.equal(1_300);
    expect(nextSlot(1_300, 600, 100)).to.equal(1_300);
  });
});
