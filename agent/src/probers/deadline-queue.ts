// The deadlines of the runs that share one timeout. Runs join as they start, so their
// deadlines come in the order they joined: one Node timer, for the earliest, serves them all.
// A run that ends in time costs a place in a ring, never a timer of its own. A timer made and
// cleared per check (a Timeout, and its list made and dropped in Node's timer queue each time
// none other was pending), with the closures around it, was more than a quarter of what the
// agent allocated per check (P1).

/** What a deadline is kept for: one run after another, told apart by a number. */
export interface TimedRun {
  /** Run `run` has not ended yet. */
  isRunning(run: number): boolean;
  /** Run `run` reached its deadline while still running. */
  expire(run: number): void;
}

const INITIAL_CAPACITY = 64;

export class DeadlineQueue {
  private holders: (TimedRun | undefined)[] = new Array(INITIAL_CAPACITY);
  private runs = new Float64Array(INITIAL_CAPACITY);
  private deadlines = new Float64Array(INITIAL_CAPACITY);
  private head = 0;
  private size = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly timeoutMs: number) {}

  /** Watches run `run` of `holder`, started at `startedAt` (performance.now()). */
  watch(holder: TimedRun, run: number, startedAt: number): void {
    if (this.size === this.holders.length) this.grow();
    const at = (this.head + this.size) % this.holders.length;
    this.holders[at] = holder;
    this.runs[at] = run;
    this.deadlines[at] = startedAt + this.timeoutMs;
    this.size++;
    if (this.timer === undefined) this.arm(performance.now());
  }

  /**
   * Drops the runs that ended (they are only dropped here, not when they end), expires those
   * past their deadline, and waits for the next one.
   */
  private readonly fire = () => {
    this.timer = undefined;
    const now = performance.now();
    while (this.size > 0) {
      const holder = this.holders[this.head]!;
      const run = this.runs[this.head]!;
      const running = holder.isRunning(run);
      if (running && this.deadlines[this.head]! > now) break;
      this.holders[this.head] = undefined;
      this.head = (this.head + 1) % this.holders.length;
      this.size--;
      if (running) holder.expire(run);
    }
    if (this.size > 0) this.arm(now);
  };

  private arm(now: number): void {
    this.timer = setTimeout(this.fire, Math.max(0, Math.ceil(this.deadlines[this.head]! - now)));
    // A run keeps the process alive with what it waits on, not with its deadline.
    this.timer.unref();
  }

  private grow(): void {
    const capacity = this.holders.length * 2;
    const holders: (TimedRun | undefined)[] = new Array(capacity);
    const runs = new Float64Array(capacity);
    const deadlines = new Float64Array(capacity);
    for (let i = 0; i < this.size; i++) {
      const from = (this.head + i) % this.holders.length;
      holders[i] = this.holders[from];
      runs[i] = this.runs[from]!;
      deadlines[i] = this.deadlines[from]!;
    }
    this.holders = holders;
    this.runs = runs;
    this.deadlines = deadlines;
    this.head = 0;
  }
}
