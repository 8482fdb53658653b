// Runs a short protocol conversation as a probe: opens the socket, lets the protocol talk,
// and turns whatever happens (refusal, garbage, silence until the timeout) into a result.
import { describeNetworkError } from './network-errors.js';
import type { ProbeSignal } from './probe-signal.js';
import type { ProbeDetails, ProbeResult, ProbeTarget } from './prober.js';
import { SocketSession } from './socket-session.js';

export interface Verdict {
  ok: boolean;
  message: string;
  details?: ProbeDetails;
}

export async function converse(target: ProbeTarget, signal: ProbeSignal, talk: (session: SocketSession) => Promise<Verdict>): Promise<ProbeResult> {
  const started = performance.now();
  let session: SocketSession | undefined;
  try {
    session = await SocketSession.open(target.endpoint, signal);
    const verdict = await talk(session);
    return { ok: verdict.ok, responseTimeMs: Math.round(performance.now() - started), message: verdict.message, details: { ...session.timings, ...verdict.details } };
  } catch (err) {
    const message = signal.aborted ? `timed out after ${target.timeoutMs} ms` : describeNetworkError(err);
    return { ok: false, responseTimeMs: Math.round(performance.now() - started), message, details: { ...session?.timings } };
  } finally {
    session?.close();
  }
}
