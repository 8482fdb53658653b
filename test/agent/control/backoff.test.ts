import { expect } from 'chai';
import { createBackoff } from '../../../agent/src/control/backoff.js';

describe('backoff', () => {
  describe('next', () => {
    it('doubles its ceiling from the base up to the cap when the random draw is at the top', () => {
      const b = createBackoff({ baseMs: 250, maxMs: 30_000, random: () => 1 });
      const delays = Array.from({ length: 10 }, () => b.next());
      expect(delays).to.deep.equal([250, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    });

    it('draws each delay anywhere between zero and the ceiling (full jitter)', () => {
      const draws = [0, 0.5, 0.25];
      const b = createBackoff({ baseMs: 100, maxMs: 10_000, random: () => draws.shift() ?? 0 });
      expect([b.next(), b.next(), b.next()]).to.deep.equal([0, 100, 100]);
    });

    it('stays finite and capped after a very long outage', () => {
      const b = createBackoff({ baseMs: 250, maxMs: 30_000, random: () => 0.999 });
      for (let i = 0; i < 2_000; i++) b.next();
      expect(b.next()).to.equal(29_970);
    });
  });

  describe('defaults', () => {
    it('never wait more than 3 s, however long the outage, so an agent is back within seconds', () => {
      const b = createBackoff({ random: () => 0.999_999 });
      const delays = Array.from({ length: 100 }, () => b.next());
      expect(Math.max(...delays)).to.equal(3_000);
    });
  });

  describe('reset', () => {
    it('starts again from the base after a welcome', () => {
      const b = createBackoff({ baseMs: 250, random: () => 1 });
      b.next();
      b.next();
      b.next();
      b.reset();
      expect(b.next()).to.equal(250);
    });
  });
});
