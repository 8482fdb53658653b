// Times typed in a datetime-local input: in the browser's time zone, sent to the API as UTC.

/** "2025-01-31T14:05" in local time, as a datetime-local input holds it. */
export function toLocalInput(iso: string | Date | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The local time as ISO UTC; an empty input is undefined, a partial one goes as it is for the API to name. */
export function localInputToIso(local: string): string | undefined {
  if (!local) return undefined;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toISOString();
}

export const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
