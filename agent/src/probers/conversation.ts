// Runs a short protocol conversation as a probe: opens the socket, lets the protocol talk,
// and turns whatever happens (refusal, garbage, silence until the timeout) into a result.
import { describeNetworkError } from './network-errors.js';
import type { ProbeSignal } from './probe-signal.js';
import type { Observed, ProbeDetails, ProbeResult, ProbeTarget } from './prober.js';
import { SocketSession } from './socket-session.js';

export interface Verdict {
  ok: boolean;
  message: string;
  details?: ProbeDetails;
  /** When the answer came (SocketSession.elapsed), if the conversation went on past it (a wait for silence). */
  responseTimeMs?: number;
}

/**
 * `talk` fills `observed` as soon as it has seen a value, so that a failure later in the
 * conversation (a timeout after the banner) still reports what the server said.
 */
export async function converse(
  target: ProbeTarget,
  signal: ProbeSignal,
  talk: (session: SocketSession, observed: Observed) => Promise<Verdict>,
): Promise<ProbeResult> {
  const started = performance.now();
  const observed: Observed = {};
  let session: SocketSession | undefined;
  let result: ProbeResult;
  try {
    session = await SocketSession.open(target.endpoint, signal);
    const verdict = await talk(session, observed);
    const responseTimeMs = Math.round(verdict.responseTimeMs ?? performance.now() - started);
    result = { ok: verdict.ok, responseTimeMs, message: verdict.message, details: { ...session.timings, ...verdict.details } };
  } catch (err) {
    const message = signal.aborted ? `timed out after ${target.timeoutMs} ms` : describeNetworkError(err);
    result = { ok: false, responseTimeMs: Math.round(performance.now() - started), message, details: { ...session?.timings } };
  } finally {
    session?.close();
  }
  return Object.keys(observed).length > 0 ? { ...result, observed } : result;
}
