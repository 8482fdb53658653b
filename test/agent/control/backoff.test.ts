import { status } from '@grpc/grpc-js';
import { expect } from 'chai';
import { createBackoff } from '../../../agent/src/control/backoff.js';
import { classifyStreamError } from '../../../agent/src/control/errors.js';

describe('backoff', () => {
  it('doubles up to the cap, jittered within the upper half, and restarts after reset', () => {
    const b = createBackoff({ baseMs: 100, maxMs: 1_000, random: () => 1 });
    expect([b.next(), b.next(), b.next(), b.next(), b.next()]).to.deep.equal([100, 200, 400, 800, 1_000]);
    b.reset();
    expect(b.next()).to.equal(100);
    expect(createBackoff({ baseMs: 100, random: () => 0 }).next()).to.equal(50);
  });
});

describe('stream errors', () => {
  it('treats a refused token or hello as fatal, everything else as transient', () => {
    expect(classifyStreamError({ code: status.UNAUTHENTICATED })).to.equal('fatal');
    expect(classifyStreamError({ code: status.INVALID_ARGUMENT })).to.equal('fatal');
    expect(classifyStreamError({ code: status.UNAVAILABLE })).to.equal('transient');
    expect(classifyStreamError(new Error('socket hang up'))).to.equal('transient');
  });
});
