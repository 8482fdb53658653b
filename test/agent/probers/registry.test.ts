import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { ProbeSignal } from '../../../agent/src/probers/probe-signal.js';
import type { Prober, ProbeResult, ProbeTarget } from '../../../agent/src/probers/prober.js';
import { createProberRegistry, type PreparedCheck } from '../../../agent/src/probers/registry.js';

const target = (timeoutMs: number): ProbeTarget => ({ checkType: 'TCP', endpoint: '127.0.0.1:1', timeoutMs, options: {} });

/** A TCP prober that does what the test tells it to with the signal it gets. */
const prober = (probe: (signal: ProbeSignal) => Promise<ProbeResult>): Prober & { signals: ProbeSignal[] } => {
  const signals: ProbeSignal[] = [];
  return {
    family: 'TCP',
    signals,
    prepare: () => (signal) => {
      signals.push(signal);
      return probe(signal);
    },
  };
};

describe('prober registry', () => {
  describe('run', () => {
    it('returns a passing result as the prober gave it and never aborts its signal', async () => {
      const p = prober(async () => ({ ok: true, responseTimeMs: 3, message: 'connected in 3 ms', details: {} }));
      const result = await createProberRegistry([p]).run(target(1_000));
      expect(result).to.deep.equal({ ok: true, responseTimeMs: 3, message: 'connected in 3 ms', details: {} });
      expect(p.signals[0]!.aborted).to.equal(false);
    });

    it('aborts the signal at the timeout and takes the prober\'s own failure within the grace', async () => {
      const p = prober(
        (signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ ok: false, responseTimeMs: 50, message: 'aborted by the prober', details: {} }))),
      );
      expect(await createProberRegistry([p]).run(target(50))).to.include({ ok: false, message: 'aborted by the prober' });
    });

    it('resolves by the deadline when the prober ignores its signal', async () => {
      const p = prober(() => new Promise(() => undefined));
      expect(await createProberRegistry([p]).run(target(20))).to.deep.equal({ ok: false, responseTimeMs: 20, message: 'timed out after 20 ms', details: {} });
      expect(p.signals[0]!.aborted).to.equal(true);
    });

    it('turns a prober that throws into a failed result', async () => {
      const p = prober(() => Promise.reject(new Error('boom')));
      expect(await createProberRegistry([p]).run(target(1_000))).to.include({ ok: false, message: 'prober error: boom' });
    });

    it('turns a prober that throws before returning a promise into a failed result', async () => {
      const p = prober(() => {
        throw new Error('thrown at once');
      });
      expect(await createProberRegistry([p]).run(target(1_000))).to.include({ ok: false, message: 'prober error: thrown at once' });
    });

    it('keeps its process alive until the result, though the probe holds nothing open', function () {
      this.timeout(30_000);
      const out = execFileSync(process.execPath, ['--import', 'tsx', path.resolve('test/fixtures/stalled-check-once.ts')], { encoding: 'utf8' });
      expect(JSON.parse(out)).to.include({ ok: false, message: 'timed out after 200 ms' });
    });

    it('reports a check type it has no prober for as not supported', async () => {
      expect(await createProberRegistry([]).run(target(1_000))).to.include({ ok: false, message: 'check type TCP is not supported by this agent version' });
    });
  });

  describe('prepare', () => {
    const runOnce = (check: PreparedCheck) => new Promise<ProbeResult>((resolve) => check(resolve));

    it('prepares a target once and runs that preparation on every check of it', async () => {
      let prepared = 0;
      let probes = 0;
      const p: Prober = {
        family: 'TCP',
        prepare: (t) => {
          prepared++;
          return async () => ({ ok: true, responseTimeMs: ++probes, message: `probe of ${t.endpoint}`, details: {} });
        },
      };
      const check = createProberRegistry([p]).prepare(target(1_000));
      const results = [await runOnce(check), await runOnce(check), await runOnce(check)];
      expect(results.map((r) => r.responseTimeMs)).to.deep.equal([1, 2, 3]);
      expect(prepared).to.equal(1);
    });

    it('turns a preparation that throws into a failed result on every check', async () => {
      const p: Prober = {
        family: 'TCP',
        prepare: () => {
          throw new Error('cannot prepare');
        },
      };
      const check = createProberRegistry([p]).prepare(target(1_000));
      for (let i = 0; i < 2; i++) expect(await runOnce(check)).to.include({ ok: false, message: 'prober error: cannot prepare' });
    });

    it('never aborts the signal of a run that ended in time, even once its deadline has passed', async () => {
      const p = prober(async () => ({ ok: true, responseTimeMs: 1, message: 'connected in 1 ms', details: {} }));
      const check = createProberRegistry([p]).prepare(target(20));
      await runOnce(check);
      await runOnce(check);
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(p.signals.map((s) => s.aborted)).to.deep.equal([false, false]);
    });

    it('gives a probe that outlived its deadline no say over the runs after it', async () => {
      const late: ((result: ProbeResult) => void)[] = [];
      const p = prober((signal) =>
        p.signals.length === 1
          ? new Promise((resolve) => late.push(resolve))
          : new Promise((resolve) => setTimeout(() => resolve({ ok: true, responseTimeMs: 5, message: 'second', details: {} }), 5)),
      );
      const check = createProberRegistry([p]).prepare(target(20));
      expect(await runOnce(check)).to.include({ ok: false, message: 'timed out after 20 ms' });
      const reported: ProbeResult[] = [];
      const second = new Promise<void>((resolve) =>
        check((result) => {
          reported.push(result);
          resolve();
        }),
      );
      late[0]!({ ok: true, responseTimeMs: 200, message: 'first, too late', details: {} });
      await second;
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(reported.map((r) => r.message)).to.deep.equal(['second']);
      expect(p.signals.map((s) => s.aborted)).to.deep.equal([true, false]);
    });

    it('reports a result only after the check has returned, whatever the prober does', async () => {
      const throwing = prober(() => {
        throw new Error('thrown at once');
      });
      for (const registry of [createProberRegistry([throwing]), createProberRegistry([])]) {
        let reported: ProbeResult | undefined;
        registry.prepare(target(1_000))((result) => (reported = result));
        expect(reported, 'reported during the call').to.equal(undefined);
        await new Promise((resolve) => setImmediate(resolve));
        expect(reported?.ok).to.equal(false);
      }
    });
  });
});
