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

export interface RedCases {
  /** What the "other protocol" listener sends as soon as a client connects. */
  otherProtocol: string;
  /** The message expected for it (a protocol that must wait for more expects a timeout). */
  otherProtocolMessage: RegExp;
  /** Turns 127.0.0.1:port into the endpoint the check type takes (a URL for HTTP and WS). */
  endpointFor?: (hostPort: string) => string;
}

/**
 * The three RED cases: a refused port, a port that speaks something else, and a listener
 * that accepts and never answers (ends at the timeout and leaves no socket open).
 */
export function itFailsLikeAnyProtocol(checkType: CheckType, cases: RedCases): void {
  const endpointFor = cases.endpointFor ?? ((hostPort: string) => hostPort);

  it('is RED with "connection refused" when nothing listens', async () => {
    const r = await runProbe(checkType, endpointFor(await refusedEndpoint()));
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/connection refused/);
  });

  it('is RED when the port speaks another protocol, and closes its socket', async () => {
    const listener = await tcpListener(cases.otherProtocol);
    try {
      const r = await runProbe(checkType, endpointFor(listener.endpoint), {}, 1_500);
      expect(r.ok, r.message).to.equal(false);
      expect(r.message).to.match(cases.otherProtocolMessage);
      await poll(() => listener.open() === 0, { what: 'the probe to close its socket', timeoutMs: 3_000 });
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
      expect(r.message).to.match(/^timed out after 600 ms/);
      expect(r.responseTimeMs).to.be.within(550, 800);
      expect(Date.now() - started).to.be.within(550, 3_000);
      expect(listener.accepted()).to.be.greaterThan(0);
      await poll(() => listener.open() === 0, { what: 'the probe to close its socket', timeoutMs: 3_000 });
    } finally {
      await listener.close();
    }
  });
}
