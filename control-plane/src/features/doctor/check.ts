// What every check of `admin doctor` answers: one line, and for a warning or a failure the fix.

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface CheckResult {
  readonly name: string;
  readonly status: CheckStatus;
  readonly message: string;
  /** One sentence; present for warn and fail. */
  readonly fix?: string;
}

/** Runs one statement against the database; the checks need nothing of the ORM. */
export type Sql = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

export const ok = (name: string, message: string): CheckResult => ({ name, status: 'ok', message });
export const warn = (name: string, message: string, fix: string): CheckResult => ({ name, status: 'warn', message, fix });
export const fail = (name: string, message: string, fix: string): CheckResult => ({ name, status: 'fail', message, fix });

export const GIB = 1024 ** 3;
export const MIB = 1024 ** 2;

/** 1536 -> "1.5 KiB": sizes as an operator reads them. */
export function humanBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
