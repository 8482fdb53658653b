// --output table|json for the listing commands: JSON is the API's objects as they came.
import { UsageError } from './cli-error.js';

export type OutputFormat = 'table' | 'json';

export function outputFormat(value: unknown): OutputFormat {
  if (value === undefined || value === 'table' || value === 'json') return (value as OutputFormat | undefined) ?? 'table';
  throw new UsageError(`--output must be table or json, not "${String(value)}"`);
}

export type Column<T> = [header: string, cell: (row: T) => unknown];

export function render<T>(rows: T | T[], format: OutputFormat, columns: Column<T>[]): string {
  if (format === 'json') return JSON.stringify(rows, null, 2);
  const list = Array.isArray(rows) ? rows : [rows];
  const cells = list.map((row) => columns.map(([, cell]) => show(cell(row))));
  const headers = columns.map(([header]) => header);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(headers), ...cells.map(line)].join('\n');
}

function show(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.join(',');
  return String(value);
}
