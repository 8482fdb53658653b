// Shared pieces of the prober tests: run a probe through the registry (the agent's real
// path, hard timeout included) and the RED cases every protocol must handle.
import { expect } from 'chai';
import type { CheckType } from '../../../shared/src/check-types.js';
import { defaultProbers } from '../../../agent/src/probers/index.js';
import type { ProbeResult } from '../../../agent/src/probers/prober.js';
import { createProberRegistry } from '../../../agent/src/probers/registry.js';
import { refusedEndpoint, tcpListener } from '../../fixtures/peers/net-fixtures.js';
import { poll } from '../../support/poll.js';

const registry = createProberRegistry(defaultProbers());

export function runProbe(checkType: CheckType, endpoint: string, options: Record<string, unknown> = {}, timeoutMs = 5_000): Promise<ProbeResult> {
  return registry.run({ checkType, endpoint, timeoutMs, options });
}

/**
 * The three RED cases: a refused port, a port that speaks something else, and a listener
 * that accepts and never answers (ends at the timeout and leaves no socket open).
 */
export function itFailsLikeAnyProtocol(checkType: CheckType, wrongProtocolReply: string, endpointFor: (hostPort: string) => string = (hp) => hp): void {
  it('is RED with "connection refused" when nothing listens', async () => {
    const r = await runProbe(checkType, endpointFor(await refusedEndpoint()));
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/refused/);
  });

  it('is RED when the port speaks another protocol', async () => {
    const listener = await tcpListener(wrongProtocolReply);
    try {
      const r = await runProbe(checkType, endpointFor(listener.endpoint), {}, 2_000);
      expect(r.ok, r.message).to.equal(false);
    } finally {
      await listener.close();
    }
  });

  it('ends at its timeout against a listener that never answers, and leaves no socket open', async () => {
    const listener = await tcpListener();
    try {
      const started = Date.now();
      const r = await runProbe(checkType, endpointFor(listener.endpoint), {}, 600);
      expect(r.ok).to.equal(false);
      expect(r.message).to.match(/timed out after 600 ms/);
      expect(Date.now() - started).to.be.within(550, 3_000);
      expect(listener.accepted()).to.be.greaterThan(0);
      await poll(() => listener.open() === 0, { what: 'the probe to close its socket', timeoutMs: 3_000 });
    } finally {
      await listener.close();
    }
  });
}
