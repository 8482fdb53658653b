// MULTISTEP: steps of HTTP requests run in order on one agent, each with its assertions and
// extractions, within the check's timeout.
import type { Prober } from './prober.js';

export function multistepProber(): Prober<'MULTISTEP'> {
  return {
    family: 'MULTISTEP',
    prepare: () => () => Promise.resolve({ ok: false, responseTimeMs: 0, message: 'MULTISTEP is not ready yet', details: {} }),
  };
}
