import { expect } from 'chai';
import { DeadlineQueue, type TimedRun } from '../../../agent/src/probers/deadline-queue.js';

/** A holder whose runs end when the test says; it records the runs that expired. */
class Holder implements TimedRun {
  readonly ended = new Set<number>();
  readonly expired: number[] = [];
  isRunning(run: number): boolean {
    return !this.ended.has(run);
  }
  expire(run: number): void {
    this.expired.push(run);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('deadline queue', () => {
  it('expires each run still going at its deadline, and none that ended', async () => {
    const queue = new DeadlineQueue(30);
    const holder = new Holder();
    for (let run = 1; run <= 4; run++) queue.watch(holder, run, performance.now());
    holder.ended.add(2);
    holder.ended.add(4);
    await sleep(15);
    expect(holder.expired, 'before the deadline').to.deep.equal([]);
    await sleep(60);
    expect(holder.expired).to.deep.equal([1, 3]);
  });

  it('keeps the order of deadlines across its ring growing while runs join and leave', async () => {
    const queue = new DeadlineQueue(40);
    const early = new Holder();
    const late = new Holder();
    // Wraps the ring around before it grows: runs that ended are dropped at the first timer.
    for (let run = 1; run <= 50; run++) {
      queue.watch(early, run, performance.now());
      early.ended.add(run);
    }
    await sleep(60);
    for (let run = 1; run <= 100; run++) queue.watch(late, run, performance.now());
    for (let run = 1; run <= 100; run += 2) late.ended.add(run);
    await sleep(80);
    expect(early.expired).to.deep.equal([]);
    expect(late.expired).to.deep.equal(Array.from({ length: 50 }, (_, i) => 2 * i + 2));
  });

  it('waits for the next deadline after the first one passes', async () => {
    const queue = new DeadlineQueue(30);
    const first = new Holder();
    const second = new Holder();
    queue.watch(first, 1, performance.now());
    await sleep(20);
    queue.watch(second, 1, performance.now());
    await sleep(25);
    expect([first.expired, second.expired]).to.deep.equal([[1], []]);
    await sleep(40);
    expect(second.expired).to.deep.equal([1]);
  });
});
