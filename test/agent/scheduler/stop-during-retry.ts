// Runs a failing check with retries 1 every 300 s, stops the scheduler while the run waits to
// retry, and prints when it stopped and how many results came: the process must then exit at
// once, no timer of the cancelled wait keeping it alive.
import { pino } from 'pino';
import { defaultProbers } from '../../../agent/src/probers/index.js';
import { createProberRegistry, type ProberRegistry } from '../../../agent/src/probers/registry.js';
import { createScheduler } from '../../../agent/src/scheduler/scheduler.js';
import { refusedEndpoint } from '../../fixtures/peers/net-fixtures.js';
import { poll } from '../../support/poll.js';

const real = createProberRegistry(defaultProbers());
let attempts = 0;
// Counts the attempts as they report, before the scheduler takes each (and, for the first, starts to wait).
const registry: ProberRegistry = {
  ...real,
  prepare: (target) => {
    const check = real.prepare(target);
    return (done) => check((result) => {
      attempts++;
      done(result);
    });
  },
};
let results = 0;
const scheduler = createScheduler({ registry, onResult: () => results++, logger: pino({ level: 'silent' }) });
scheduler.upsert({
  serviceId: 'svc-stop', version: 1, checkType: 'TCP', endpoint: await refusedEndpoint(), intervalSeconds: 3600, timeoutSeconds: 5,
  options: { retries: 1, retry_interval_seconds: 300 },
});
await poll(() => attempts === 1, { what: 'the first attempt', intervalMs: 10 });
await scheduler.stop();
process.stdout.write(JSON.stringify({ stoppedAt: Date.now(), attempts, results }));
