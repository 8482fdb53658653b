// How every benchmark reports a figure: one line for the person watching, and, when run by
// `npm run bench` (BENCH_REPORT names a file), one JSON line the table is built from.
import { appendFileSync } from 'node:fs';

export interface Figure {
  /** The goal's id in issue 13's table (P1..P9), with a suffix when one goal has several figures. */
  id: string;
  what: string;
  ours: number;
  unit: string;
  /** The reference measured in the same run, in the same unit; null for an absolute goal. */
  reference: { name: string; value: number } | null;
  /** The goal as written, e.g. "≤ 1.05x" or "≤ 250 ms". */
  goal: string;
  /** Whether the figure meets the goal (the benchmark knows which way is better). */
  met: boolean;
}

/** True when the benchmark should run at the full size of issue 13's table instead of the quick one. */
export const fullSize = process.argv.includes('--full');

export function ratio(figure: Pick<Figure, 'ours' | 'reference'>): number | null {
  return figure.reference && figure.reference.value !== 0 ? figure.ours / figure.reference.value : null;
}

export function report(figure: Figure): void {
  const r = ratio(figure);
  const against = figure.reference ? ` vs ${figure.reference.name} ${round(figure.reference.value)} ${figure.unit} = ${r!.toFixed(2)}x` : '';
  console.log(`[${figure.id}] ${figure.what}: ${round(figure.ours)} ${figure.unit}${against} (goal ${figure.goal}: ${figure.met ? 'met' : 'NOT met'})`);
  const file = process.env.BENCH_REPORT;
  if (file) appendFileSync(file, `${JSON.stringify({ ...figure, ratio: r })}\n`);
}

export function round(n: number): string {
  return Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en') : n.toFixed(Math.abs(n) >= 10 ? 1 : 2);
}

/** The p-th percentile (0..100) of values sorted ascending. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * Of rounds that each measured ours beside its reference under the same conditions, the round
 * whose ratio is the median: the machine's speed drifts between rounds, a round's ratio less.
 */
export function medianRatioRound<T>(rounds: readonly T[], ratioOf: (round: T) => number): T {
  const sorted = [...rounds].sort((a, b) => ratioOf(a) - ratioOf(b));
  return sorted[Math.floor(sorted.length / 2)]!;
}
