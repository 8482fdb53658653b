// Go's time.ParseDuration, which Gatus uses for every duration: "30s", "1h30m", "500ms", "1.5h".

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;

/** Milliseconds, or undefined when the text is not a Go duration. A bare "0" is zero, as in Go. */
export function parseGoDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^[+-]?0$/.test(trimmed)) return 0;
  const whole = DURATION.exec(trimmed);
  if (!whole) return undefined;
  let ms = 0;
  for (const [, amount, unit] of trimmed.matchAll(PART)) ms += Number(amount) * UNIT_MS[unit!]!;
  return whole[1] === '-' ? -ms : ms;
}
