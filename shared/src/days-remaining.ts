/** TLS_CERTIFICATE: fewer days left turns YELLOW; 14 stays quiet while ACME clients renew at 30. */
export const DEFAULT_CERTIFICATE_WARN_DAYS = 14;

const DAY_MS = 86_400_000;

/** Whole days until `validTo`, rounded down: negative once a certificate has expired. */
export function daysRemaining(validTo: Date, now: Date): number {
  return Math.floor((validTo.getTime() - now.getTime()) / DAY_MS);
}
