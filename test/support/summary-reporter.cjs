// Mocha's spec reporter plus the ten slowest test files (the suite must stay under ten minutes,
// so CI's log says where the time goes) and one plain closing line, "N passed, N failed", that
// CI reads.
const Mocha = require('mocha');
const fs = require('node:fs');
const path = require('node:path');

const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END } = Mocha.Runner.constants;
const SLOWEST_SHOWN = 10;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const started = new Map();
    const seconds = new Map();
    // A file's top-level suites, hooks included: the time a file costs the run.
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.file && suite.parent?.root) started.set(suite, process.hrtime.bigint());
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      const t0 = started.get(suite);
      if (t0 === undefined) return;
      const file = path.relative(process.cwd(), suite.file);
      seconds.set(file, (seconds.get(file) ?? 0) + Number(process.hrtime.bigint() - t0) / 1e9);
    });
    runner.once(EVENT_RUN_END, () => {
      const slowest = [...seconds].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_SHOWN);
      if (slowest.length > 1) {
        process.stdout.write(`\nslowest files:\n${slowest.map(([file, s]) => `  ${s.toFixed(1).padStart(6)} s  ${file}`).join('\n')}\n`);
      }
      // Every file's time, for comparing runs: OUTPOST_TEST_TIMES=/path/file.json.
      if (process.env.OUTPOST_TEST_TIMES) fs.writeFileSync(process.env.OUTPOST_TEST_TIMES, JSON.stringify(Object.fromEntries(seconds), null, 1));
      const { passes, failures, pending } = runner.stats;
      process.stdout.write(`${passes} passed, ${failures} failed${pending ? `, ${pending} skipped` : ''}\n`);
    });
  }
}

module.exports = SummaryReporter;
