// What a prober derives from a target (a parsed endpoint, an encoded request) is made on the
// target's first check and kept with it: the scheduler hands the same target object to every
// check of an assignment, and a changed assignment comes with a new one, so nothing goes stale
// and nothing outlives its assignment.
import type { CheckFamily } from '../../../shared/src/check-types.js';
import type { ProbeTarget } from './prober.js';

/** `make`, called once per target; a throw is not kept (the next check tries again). */
export function perTarget<F extends CheckFamily, T extends NonNullable<unknown> | null>(make: (target: ProbeTarget<F>) => T): (target: ProbeTarget<F>) => T {
  const made = new WeakMap<ProbeTarget<F>, T>();
  return (target) => {
    let value = made.get(target);
    if (value === undefined) {
      value = make(target);
      made.set(target, value);
    }
    return value;
  };
}
