import { expect } from 'chai';
import { AppError } from '../../../control-plane/src/errors.js';
import { createLoginLimiter } from '../../../control-plane/src/features/auth/login-limiter.js';
import { memoryRateLimiters } from '../../../control-plane/src/limits/rate-limiter.js';
import { poll } from '../../support/poll.js';

describe('login limiter', () => {
  const limiter = (windowSeconds = 60) =>
    createLoginLimiter(memoryRateLimiters(), { perAddressAndAccount: { points: 3, windowSeconds }, perAddress: { points: 5, windowSeconds } });
  const refusal = async (work: Promise<void>) => {
    try {
      await work;
    } catch (err) {
      return err;
    }
    return undefined;
  };

  it('refuses an account from an address after its failures there reach the limit, with the seconds to wait', async () => {
    const l = limiter();
    const attempt = { email: 'a@x', address: '1.1.1.1' };
    for (let i = 0; i < 3; i++) await l.recordFailure(attempt);
    const err = await refusal(l.assertAllowed(attempt));
    expect(err).to.be.instanceOf(AppError).with.property('code', 'RATE_LIMITED');
    expect((err as AppError).extra.retryAfterSeconds).to.be.within(59, 60);
  });

  it('keeps letting the account in from every other address', async () => {
    const l = limiter();
    for (let i = 0; i < 3; i++) await l.recordFailure({ email: 'owner@x', address: '6.6.6.6' });
    expect(await refusal(l.assertAllowed({ email: 'owner@x', address: '6.6.6.6' }))).to.be.instanceOf(AppError);
    expect(await refusal(l.assertAllowed({ email: 'owner@x', address: '1.2.3.4' }))).to.equal(undefined);
  });

  it('allows the account again once the window has passed', async () => {
    const l = limiter(1);
    const attempt = { email: 'a@x', address: '1.1.1.1' };
    for (let i = 0; i < 3; i++) await l.recordFailure(attempt);
    expect(await refusal(l.assertAllowed(attempt))).to.be.instanceOf(AppError);
    await poll(async () => (await refusal(l.assertAllowed(attempt))) === undefined, { what: 'the window to pass', timeoutMs: 3_000 });
  });

  it('limits an address spraying many accounts', async () => {
    const l = limiter();
    for (let i = 0; i < 5; i++) await l.recordFailure({ email: `u${i}@x`, address: '2.2.2.2' });
    expect(await refusal(l.assertAllowed({ email: 'fresh@x', address: '2.2.2.2' }))).to.be.instanceOf(AppError);
    expect(await refusal(l.assertAllowed({ email: 'fresh@x', address: '3.3.3.3' }))).to.equal(undefined);
  });

  it("clears the account's failures from that address on success", async () => {
    const l = limiter();
    const attempt = { email: 'a@x', address: '1.1.1.1' };
    for (let i = 0; i < 2; i++) await l.recordFailure(attempt);
    await l.recordSuccess(attempt);
    await l.recordFailure(attempt);
    expect(await refusal(l.assertAllowed(attempt))).to.equal(undefined);
  });
});
