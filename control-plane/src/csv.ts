// CSV as RFC 4180 has it: CRLF line ends, cells quoted when they hold a quote, comma or line
// break. Text a spreadsheet would run as a formula (starting with = + - @, a tab or a carriage
// return) is prefixed with ' — exports carry what strangers typed (subscribers' addresses) or
// named (services). Numbers stay numbers; null is an empty cell.
export type CsvCell = string | number | null;

function cell(value: CsvCell): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The header row, then one row per entry. */
export function csv(header: readonly string[], rows: readonly CsvCell[][]): string {
  return [header, ...rows].map((row) => `${row.map(cell).join(',')}\r\n`).join('');
}
