// The deadline a prober is given: whether it has passed, and a way to hear when it does. It is
// the part of AbortSignal the probers use (a real AbortSignal fits it), made without an
// AbortController: in the agent's CPU profile, creating an AbortSignal for every check (an
// EventTarget whose prototype is set one object at a time) cost more than the rest of the
// deadline together.

export interface ProbeSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Aborted once by its owner; like an AbortSignal, it calls each listener once, and none added after it aborted. */
export class DeadlineSignal implements ProbeSignal {
  aborted = false;
  private listeners: (() => void)[] | undefined;

  addEventListener(_type: 'abort', listener: () => void, _options?: { once?: boolean }): void {
    if (this.aborted) return;
    this.listeners ??= [];
    if (!this.listeners.includes(listener)) this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.listeners?.indexOf(listener) ?? -1;
    if (index >= 0) this.listeners!.splice(index, 1);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    for (const listener of listeners) listener();
  }
}
