import { expect } from 'chai';
import { DeadlineSignal } from '../../../agent/src/probers/probe-signal.js';

describe('DeadlineSignal', () => {
  it('is not aborted until its owner aborts it, then calls each listener once', () => {
    const signal = new DeadlineSignal();
    const calls: string[] = [];
    const first = () => calls.push('first');
    signal.addEventListener('abort', first, { once: true });
    signal.addEventListener('abort', first);
    signal.addEventListener('abort', () => calls.push('second'));
    expect(signal.aborted).to.equal(false);
    signal.abort();
    signal.abort();
    expect(signal.aborted).to.equal(true);
    expect(calls).to.deep.equal(['first', 'second']);
  });

  it('does not call a listener removed before the abort', () => {
    const signal = new DeadlineSignal();
    const calls: string[] = [];
    const removed = () => calls.push('removed');
    signal.addEventListener('abort', removed);
    signal.addEventListener('abort', () => calls.push('kept'));
    signal.removeEventListener('abort', removed);
    signal.removeEventListener('abort', () => undefined);
    signal.abort();
    expect(calls).to.deep.equal(['kept']);
  });

  it('does not call a listener added after the abort, as an AbortSignal does not', () => {
    const signal = new DeadlineSignal();
    signal.abort();
    let called = false;
    signal.addEventListener('abort', () => (called = true));
    expect(called).to.equal(false);
  });
});
