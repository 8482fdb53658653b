import { expect } from 'chai';
import { statusOf } from '../../../shared/src/status.js';

describe('status', () => {
  describe('statusOf', () => {
    it('is RED when the check failed, however fast', () => {
      expect(statusOf(false, 5)).to.equal('RED');
    });
    it('is GREEN when the check passed within 1000 ms', () => {
      expect(statusOf(true, 1000)).to.equal('GREEN');
    });
    it('is YELLOW when the check passed above 1000 ms', () => {
      expect(statusOf(true, 1001)).to.equal('YELLOW');
    });
    it('is YELLOW when the prober judged a passed check degraded, however fast, and RED when it failed', () => {
      expect(statusOf(true, 5, true)).to.equal('YELLOW');
      expect(statusOf(false, 5, true)).to.equal('RED');
      expect(statusOf(true, 5, false)).to.equal('GREEN');
    });
  });
});
