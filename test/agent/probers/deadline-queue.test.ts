import { expect } from 'chai';
import { DeadlineQueue, type TimedRun } from '../../../agent/src/probers/deadline-queue.js';

/** A holder whose runs end when the test says; it records the runs that expired, and when. */
class Holder implements TimedRun {
  readonly ended = new Set<number>();
  readonly expired: number[] = [];
  readonly expiredAt = new Map<number, number>();
  isRunning(run: number): boolean {
    return !this.ended.has(run);
  }
  expire(run: number): void {
    this.expired.push(run);
    this.expiredAt.set(run, performance.now());
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Node runs timers in the order they fall due, so a sleep that falls due after a deadline ends
// after that deadline was handled, however late the process runs them.
describe('deadline queue', () => {
  it('expires each run still going at its deadline, never before it, and none that ended', async () => {
    const queue = new DeadlineQueue(30);
    const holder = new Holder();
    const startedAt = performance.now();
    for (let run = 1; run <= 4; run++) queue.watch(holder, run, startedAt);
    holder.ended.add(2);
    holder.ended.add(4);
    await sleep(60);
    expect(holder.expired).to.deep.equal([1, 3]);
    for (const at of holder.expiredAt.values()) expect(at).to.be.at.least(startedAt + 30);
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
    const firstStarted = performance.now();
    queue.watch(first, 1, firstStarted);
    await sleep(20);
    const secondStarted = performance.now();
    queue.watch(second, 1, secondStarted);
    await sleep(60);
    expect([first.expired, second.expired]).to.deep.equal([[1], [1]]);
    expect(first.expiredAt.get(1)).to.be.at.least(firstStarted + 30);
    expect(second.expiredAt.get(1)).to.be.at.least(secondStarted + 30);
  });
});
