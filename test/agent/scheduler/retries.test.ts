// options.retries through the scheduler, with the real HTTP prober against a scripted HTTP
// server on 127.0.0.1: which runs retry, what a run then reports, and how a run that waits to
// retry gives way to stopping, removal and a changed check.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { defaultProbers } from '../../../agent/src/probers/index.js';
import { createProberRegistry } from '../../../agent/src/probers/registry.js';
import { createScheduler, type Assignment, type CompletedRun, type Scheduler } from '../../../agent/src/scheduler/scheduler.js';
import { poll } from '../../support/poll.js';

/** An HTTP target that answers the statuses it is given, one per request, then `otherwise`. */
class ScriptedTarget {
  hits = 0;
  active = 0;
  maxActive = 0;
  script: number[] = [];
  otherwise = 503;
  /** Milliseconds before answering 200, so that a pass is slow. */
  slowMs = 0;
  private readonly server: Server = http.createServer((_req, res) => {
    this.hits++;
    this.maxActive = Math.max(this.maxActive, ++this.active);
    const status = this.script.shift() ?? this.otherwise;
    setTimeout(() => {
      this.active--;
      res.writeHead(status).end();
    }, status === 200 ? this.slowMs : 0);
  });

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }
}

type Attempt = { attempt: number; ok: boolean; response_time_ms: number; message: string; started_at: string };
const attemptsOf = (run: CompletedRun) => run.result.details.attempts as Attempt[] | undefined;

describe('scheduler retries', function () {
  this.timeout(20_000);
  let target: ScriptedTarget;
  let url: string;
  let scheduler: Scheduler;
  /** Each result, with the requests the target had seen when it came. */
  let runs: { run: CompletedRun; hits: number }[];

  const make = (maxConcurrentChecks?: number) => {
    scheduler = createScheduler({
      registry: createProberRegistry(defaultProbers()),
      onResult: (run) => runs.push({ run, hits: target.hits }),
      logger: pino({ level: 'silent' }),
      maxConcurrentChecks,
    });
  };
  const assignment = (options: Record<string, unknown>, fields: Partial<Assignment> = {}): Assignment => ({
    serviceId: 'svc-retry', version: 1, checkType: 'HTTP', endpoint: url, intervalSeconds: 3600, timeoutSeconds: 5, options, ...fields,
  });
  const nthResult = (n: number) => poll(() => runs[n - 1], { what: `result ${n}`, timeoutMs: 15_000 });

  beforeEach(async () => {
    target = new ScriptedTarget();
    url = await target.start();
    runs = [];
    make();
  });
  let child: ChildProcess | undefined;
  afterEach(async () => {
    await scheduler.stop();
    target.close();
    if (child?.exitCode === null) child.kill();
  });

  it('reports GREEN with both attempts listed when the target fails once and the one retry passes', async () => {
    target.script = [503, 200];
    scheduler.upsert(assignment({ retries: 1, retry_interval_seconds: 1 }));
    const { run, hits } = await nthResult(1);
    expect(hits).to.equal(2);
    expect(run.status).to.equal('GREEN');
    expect(run.result).to.deep.include({ ok: true });
    const attempts = attemptsOf(run)!;
    expect(attempts.map((a) => [a.attempt, a.ok])).to.deep.equal([
      [1, false],
      [2, true],
    ]);
    expect(attempts[0]!.message).to.match(/^HTTP 503 in \d+ ms: unexpected status$/);
    expect(attempts[1]!.message).to.equal(run.result.message);
    // The run began with its first attempt; its response time and other details are the last one's.
    expect(run.checkedAt).to.equal(Date.parse(attempts[0]!.started_at));
    expect(Date.parse(attempts[1]!.started_at) - Date.parse(attempts[0]!.started_at)).to.be.at.least(1_000);
    expect(run.result.responseTimeMs).to.equal(attempts[1]!.response_time_ms);
    expect(run.result.details.status_code).to.equal(200);
  });

  it('reports RED after retries + 1 attempts, spaced by the interval, when the target stays down', async () => {
    scheduler.upsert(assignment({ retries: 2, retry_interval_seconds: 1 }));
    const { run, hits } = await nthResult(1);
    expect(hits).to.equal(3);
    expect(run.status).to.equal('RED');
    const attempts = attemptsOf(run)!;
    expect(attempts.map((a) => [a.attempt, a.ok])).to.deep.equal([
      [1, false],
      [2, false],
      [3, false],
    ]);
    const starts = attempts.map((a) => Date.parse(a.started_at));
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!, `the wait before attempt ${i + 1}`).to.be.within(1_000, 1_900);
    expect(run.result.details.status_code).to.equal(503);
  });

  it('makes one attempt and lists none when retries is 0', async () => {
    target.script = [503, 200];
    scheduler.upsert(assignment({ retries: 0, retry_interval_seconds: 1 }));
    const { run, hits } = await nthResult(1);
    expect(hits).to.equal(1);
    expect(run.status).to.equal('RED');
    expect(run.result.details).not.to.have.property('attempts');
  });

  it('does not retry a YELLOW, and a slow retry that passes makes the run YELLOW', async () => {
    target.slowMs = 60;
    target.script = [200];
    scheduler.upsert(assignment({ retries: 2, retry_interval_seconds: 1, degraded_after_ms: 20 }));
    const yellow = await nthResult(1);
    expect([yellow.run.status, yellow.hits]).to.deep.equal(['YELLOW', 1]);
    expect(yellow.run.result.details).not.to.have.property('attempts');

    target.script = [503, 200];
    scheduler.runNow('svc-retry');
    const retried = await nthResult(2);
    expect([retried.run.status, retried.hits]).to.deep.equal(['YELLOW', 3]);
    expect(attemptsOf(retried.run)!.map((a) => a.ok)).to.deep.equal([false, true]);
  });

  it('retries a run-now as it does a scheduled run', async () => {
    target.script = [200, 503, 200];
    scheduler.upsert(assignment({ retries: 1, retry_interval_seconds: 1 }));
    await nthResult(1);
    scheduler.runNow('svc-retry');
    const { run, hits } = await nthResult(2);
    expect([run.adHoc, run.status, hits]).to.deep.equal([true, 'GREEN', 3]);
    expect(attemptsOf(run)).to.have.length(2);
  });

  it('starts no other run of the service while it retries, though its slots come meanwhile', async () => {
    scheduler.upsert(assignment({ retries: 2, retry_interval_seconds: 1 }, { intervalSeconds: 1 }));
    const first = await nthResult(1);
    expect(first.hits, 'the run\'s three attempts, and no scheduled run among them').to.equal(3);
    const second = await nthResult(2);
    expect(second.hits).to.equal(6);
    expect(target.maxActive).to.equal(1);
  });

  it('holds no concurrency place while it waits to retry', async () => {
    make(1);
    scheduler.upsert(assignment({ retries: 1, retry_interval_seconds: 30 }));
    await poll(() => target.hits === 1, { what: 'the first attempt' });
    target.otherwise = 200;
    scheduler.upsert(assignment({}, { serviceId: 'svc-other' }));
    const { run } = await nthResult(1);
    expect([run.assignment.serviceId, run.status]).to.deep.equal(['svc-other', 'GREEN']);
  });

  it('ends a run waiting to retry at once, without a result, when its check changes, and runs the new one', async () => {
    scheduler.upsert(assignment({ retries: 1, retry_interval_seconds: 30 }));
    await poll(() => target.hits === 1, { what: 'the first attempt' });
    target.otherwise = 200;
    scheduler.upsert(assignment({ retries: 1, retry_interval_seconds: 30 }, { version: 2 }));
    const { run, hits } = await nthResult(1);
    expect([run.assignment.version, run.status, hits]).to.deep.equal([2, 'GREEN', 2]);
    expect(run.result.details).not.to.have.property('attempts');
  });

  it('ends a run waiting to retry at once when its service is removed, so that a re-added one runs at once', async () => {
    scheduler.upsert(assignment({ retries: 1, retry_interval_seconds: 30 }));
    await poll(() => target.hits === 1, { what: 'the first attempt' });
    scheduler.remove('svc-retry', 1);
    expect(scheduler.size()).to.equal(0);
    target.otherwise = 200;
    scheduler.upsert(assignment({}, { version: 2 }));
    const { run, hits } = await nthResult(1);
    expect([run.assignment.version, run.status, hits]).to.deep.equal([2, 'GREEN', 2]);
  });

  it('lets a process whose scheduler stops during a retry wait exit at once, reporting nothing', async () => {
    // In a process of its own: a wait left behind would keep it alive for the retry interval (300 s).
    const spawned = spawn(process.execPath, ['--import', 'tsx', path.resolve('test/agent/scheduler/stop-during-retry.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
    child = spawned;
    let out = '';
    spawned.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const [code] = (await once(spawned, 'exit')) as [number | null];
    expect(code).to.equal(0);
    const { stoppedAt, attempts, results } = JSON.parse(out) as { stoppedAt: number; attempts: number; results: number };
    expect([attempts, results]).to.deep.equal([1, 0]);
    expect(Date.now() - stoppedAt, 'from the stop to the exit').to.be.below(3_000);
  });
});
