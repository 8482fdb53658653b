// For the steps a prober cannot cancel itself (getaddrinfo, a driver's connect): the probe
// stops waiting at the timeout, and the caller destroys whatever the step was building.
import type { ProbeSignal } from './probe-signal.js';

/** Settles like `promise`, or rejects as soon as `signal` aborts. */
export function abortable<T>(promise: Promise<T>, signal: ProbeSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
