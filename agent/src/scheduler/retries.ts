// options.retries: a failed run of a check is tried again, options.retry_interval_seconds
// apart, before its failure counts, so that one lost packet opens no alert. A retry that passes
// makes the run pass. A check without retries has no RetryingRun at all: its runs pay nothing.
import type { DetailValue, ProbeResult } from '../probers/prober.js';

const DEFAULT_INTERVAL_SECONDS = 5;

export interface RetryPolicy {
  retries: number;
  intervalMs: number;
}

/** The check's retries, as validated by shared/src/check-options.ts; undefined when a failure counts at once. */
export function retryPolicy(options: Record<string, unknown>): RetryPolicy | undefined {
  const { retries, retry_interval_seconds: seconds } = options;
  if (typeof retries !== 'number' || retries < 1) return undefined;
  return { retries, intervalMs: (typeof seconds === 'number' ? seconds : DEFAULT_INTERVAL_SECONDS) * 1000 };
}

/**
 * The attempts of one run after another of a check that retries, and the wait before the next
 * attempt. Its owner starts each attempt and hands over its result; `retry` is called when the
 * wait is over.
 */
export class RetryingRun {
  private attempts: DetailValue[] = [];
  private startedAt = 0;
  private wait: NodeJS.Timeout | undefined;

  constructor(
    private readonly policy: RetryPolicy,
    private readonly retry: () => void,
  ) {}

  /** An attempt starts (epoch ms); true when it is its run's first. */
  attemptStarts(now: number): boolean {
    this.startedAt = now;
    return this.attempts.length === 0;
  }

  /** Records an attempt's result; true when it failed and the run may still try again. */
  failedWithRetriesLeft(result: ProbeResult): boolean {
    this.attempts.push({ attempt: this.attempts.length + 1, ok: result.ok, response_time_ms: result.responseTimeMs, message: result.message, started_at: new Date(this.startedAt).toISOString() });
    return !result.ok && this.attempts.length <= this.policy.retries;
  }

  waitToRetry(): void {
    this.wait = setTimeout(this.retried, this.policy.intervalMs);
  }

  /** The run's result: its last attempt's, listing every attempt when there were several. */
  final(result: ProbeResult): ProbeResult {
    const { attempts } = this;
    this.attempts = [];
    return attempts.length > 1 ? { ...result, details: { ...result.details, attempts } } : result;
  }

  /** Ends the run without a result, its failures not counted; true when it was waiting to retry. */
  cancel(): boolean {
    const waiting = this.wait !== undefined;
    clearTimeout(this.wait);
    this.wait = undefined;
    this.attempts = [];
    return waiting;
  }

  private readonly retried = () => {
    this.wait = undefined;
    this.retry();
  };
}

/** One run of a check outside the scheduler (the `check` command), with the check's retries. */
export function runWithRetries(run: () => Promise<ProbeResult>, options: Record<string, unknown>): Promise<ProbeResult> {
  const policy = retryPolicy(options);
  if (!policy) return run();
  return new Promise((resolve) => {
    const attempt = () => {
      retrying.attemptStarts(Date.now());
      void run().then((result) => {
        if (!retrying.failedWithRetriesLeft(result)) return resolve(retrying.final(result));
        retrying.waitToRetry();
      });
    };
    const retrying = new RetryingRun(policy, attempt);
    attempt();
  });
}
