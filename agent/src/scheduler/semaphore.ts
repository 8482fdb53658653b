// Caps how many probes run at once, so a large snapshot does not open every socket together,
// and how many wait, so an agent that cannot keep up holds bounded memory and says so.
// Callbacks rather than promises: it sits on every check's path, and a free place, the usual
// case, then costs no allocation.
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limit: number,
    private readonly maxWaiting: number,
  ) {}

  /**
   * Calls `start` once a place is free (at once when one is), holding that place until
   * release(); false (and `start` is never called) when the queue is full.
   */
  acquire(start: () => void): boolean {
    if (this.active < this.limit) {
      this.active++;
      start();
      return true;
    }
    if (this.waiting.length >= this.maxWaiting) return false;
    this.waiting.push(start);
    return true;
  }

  /** Frees a place taken by acquire(); the longest waiting start takes it over. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}
