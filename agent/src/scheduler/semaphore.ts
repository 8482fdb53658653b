// Caps how many probes run at once, so a large snapshot does not open every socket together,
// and how many wait, so an agent that cannot keep up holds bounded memory and says so.
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limit: number,
    private readonly maxWaiting: number,
  ) {}

  /** Runs `work` when a place is free; null (and `work` never runs) when the queue is full. */
  tryRun<T>(work: () => Promise<T>): Promise<T> | null {
    if (this.active >= this.limit && this.waiting.length >= this.maxWaiting) return null;
    return this.run(work);
  }

  private async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await work();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}
