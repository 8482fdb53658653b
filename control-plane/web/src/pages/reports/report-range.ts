// A report's range as whole days in UTC (the rollups' days): the first day and the last day,
// both included, as date inputs hold them; presets for the ranges people hand to customers.
export interface DayRange {
  /** "2025-01-01" */
  from: string;
  /** "2025-01-31", included */
  to: string;
}

const day = (d: Date) => d.toISOString().slice(0, 10);
const utc = (year: number, month: number, date: number) => new Date(Date.UTC(year, month, date));

export const PRESETS: { label: string; range(now: Date): DayRange }[] = [
  {
    label: 'Last 30 days',
    range: (now) => ({ from: day(utc(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 29)), to: day(now) }),
  },
  {
    label: 'Last month',
    range: (now) => ({ from: day(utc(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)), to: day(utc(now.getUTCFullYear(), now.getUTCMonth(), 0)) }),
  },
  {
    label: 'Last quarter',
    range: (now) => {
      const quarterStart = now.getUTCMonth() - (now.getUTCMonth() % 3);
      return { from: day(utc(now.getUTCFullYear(), quarterStart - 3, 1)), to: day(utc(now.getUTCFullYear(), quarterStart, 0)) };
    },
  },
];

/** The API's from and to: the first day's start, and the end of the last day or now, whichever is earlier. */
export function rangeQuery({ from, to }: DayRange, now = new Date()): { from: string; to: string } {
  const end = new Date(`${to}T00:00:00Z`);
  end.setUTCDate(end.getUTCDate() + 1);
  return { from: `${from}T00:00:00.000Z`, to: (end > now ? now : end).toISOString() };
}
