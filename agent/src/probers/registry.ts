// Finds the prober for a check type and runs it under the check's hard timeout. Whatever a
// prober does (throws, ignores its signal), run() resolves with a result by the deadline.
import { AGENT_CHECK_TYPES, checkFamily, type CheckFamily, type CheckType } from '../../../shared/src/check-types.js';
import type { Prober, ProbeResult, ProbeTarget } from './prober.js';

/** Time a prober gets after its signal aborts to report its own, more precise, failure. */
const ABORT_GRACE_MS = 100;

export interface ProberRegistry {
  /** Check types this agent can run, sent to the control plane on hello. */
  capabilities(): CheckType[];
  run(target: ProbeTarget): Promise<ProbeResult>;
}

export function createProberRegistry(probers: readonly Prober[]): ProberRegistry {
  const byFamily = new Map<CheckFamily, Prober>(probers.map((p) => [p.family, p]));

  return {
    capabilities: () => AGENT_CHECK_TYPES.filter((t) => byFamily.has(checkFamily(t))),
    async run(target) {
      const prober = byFamily.get(checkFamily(target.checkType));
      if (!prober) {
        return failed(0, `check type ${target.checkType} is not supported by this agent version`);
      }
      return runWithDeadline(prober, target);
    },
  };
}

async function runWithDeadline(prober: Prober, target: ProbeTarget): Promise<ProbeResult> {
  const started = performance.now();
  const controller = new AbortController();
  const abortTimer = setTimeout(() => controller.abort(), target.timeoutMs);
  let hardTimer: NodeJS.Timeout | undefined;
  const deadline = new Promise<ProbeResult>((resolve) => {
    hardTimer = setTimeout(
      () => resolve(failed(target.timeoutMs, `timed out after ${target.timeoutMs} ms`)),
      target.timeoutMs + ABORT_GRACE_MS,
    );
  });
  try {
    return await Promise.race([
      prober.probe(target, controller.signal).catch((err: unknown) =>
        failed(performance.now() - started, `prober error: ${err instanceof Error ? err.message : String(err)}`),
      ),
      deadline,
    ]);
  } finally {
    clearTimeout(abortTimer);
    clearTimeout(hardTimer);
    controller.abort();
  }
}

function failed(responseTimeMs: number, message: string): ProbeResult {
  return { ok: false, responseTimeMs: Math.round(responseTimeMs), message, details: {} };
}
