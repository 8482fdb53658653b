// The phases of one HTTP exchange, timed from its connection's events whichever path makes it:
// dns, connect (to the proxy's tunnel when there is one), tls, ttfb (first byte, or the
// response's head where the client hides the bytes) and transfer (the rest of the body).

type Phase = 'lookup' | 'connect' | 'tls' | 'firstByte';

export class PhaseTimer {
  private readonly started = performance.now();
  private readonly marks: Partial<Record<Phase, number>> = {};

  /** The first time a phase ends counts (a tunnel's TLS socket connects again over it). */
  mark(phase: Phase): void {
    this.marks[phase] ??= performance.now() - this.started;
  }

  /** Milliseconds, to 0.1, of the phases that were seen. */
  phases(): Record<string, number> {
    const m = this.marks;
    const end = performance.now() - this.started;
    const round = (v: number) => Math.round(v * 10) / 10;
    const t: Record<string, number> = {};
    if (m.lookup !== undefined) t.dns_ms = round(m.lookup);
    const connectStart = m.lookup ?? 0;
    if (m.connect !== undefined) t.connect_ms = round(m.connect - connectStart);
    if (m.tls !== undefined && m.connect !== undefined) t.tls_ms = round(m.tls - m.connect);
    const requestSent = m.tls ?? m.connect;
    if (m.firstByte !== undefined && requestSent !== undefined) t.ttfb_ms = round(m.firstByte - requestSent);
    if (m.firstByte !== undefined) t.transfer_ms = round(end - m.firstByte);
    return t;
  }
}
