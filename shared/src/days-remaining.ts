const DAY_MS = 86_400_000;

/** Whole days until `validTo`, rounded down: negative once a certificate has expired. */
export function daysRemaining(validTo: Date, now: Date): number {
  return Math.floor((validTo.getTime() - now.getTime()) / DAY_MS);
}
