import { expect } from 'chai';
import { AppError } from '../../../control-plane/src/errors.js';
import { createLoginLimiter } from '../../../control-plane/src/features/auth/login-limiter.js';

describe('login limiter', () => {
  let clock = 0;
  const limiter = () => createLoginLimiter({ windowMs: 60_000, maxFailuresPerEmail: 3, maxFailuresPerAddress: 5, now: () => clock });
  beforeEach(() => {
    clock = 1_000_000;
  });

  it('refuses an e-mail after its failures reach the limit, with the seconds to wait', () => {
    const l = limiter();
    const attempt = { email: 'a@x', address: '1.1.1.1' };
    for (let i = 0; i < 3; i++) l.recordFailure(attempt);
    clock += 10_000;
    expect(() => l.assertAllowed(attempt)).to.throw(AppError).with.property('extra').that.deep.equals({ retryAfterSeconds: 50 });
  });

  it('allows the e-mail again once the window has passed', () => {
    const l = limiter();
    const attempt = { email: 'a@x', address: '1.1.1.1' };
    for (let i = 0; i < 3; i++) l.recordFailure(attempt);
    clock += 60_001;
    expect(() => l.assertAllowed(attempt)).to.not.throw();
  });

  it('limits an address spraying many e-mails', () => {
    const l = limiter();
    for (let i = 0; i < 5; i++) l.recordFailure({ email: `u${i}@x`, address: '2.2.2.2' });
    expect(() => l.assertAllowed({ email: 'fresh@x', address: '2.2.2.2' })).to.throw(AppError);
    expect(() => l.assertAllowed({ email: 'fresh@x', address: '3.3.3.3' })).to.not.throw();
  });

  it("clears an e-mail's failures on success", () => {
    const l = limiter();
    const attempt = { email: 'a@x', address: '1.1.1.1' };
    for (let i = 0; i < 2; i++) l.recordFailure(attempt);
    l.recordSuccess(attempt);
    l.recordFailure(attempt);
    expect(() => l.assertAllowed(attempt)).to.not.throw();
  });
});
