// Subscribers as CSV (RFC 4180). Addresses come from anonymous visitors, so a cell that a
// spreadsheet would run as a formula (= + - @, tab, carriage return) is prefixed with '.
import type { Subscriber } from './subscribers.repository.js';

const COLUMNS = ['id', 'email', 'webhook_url', 'component_ids', 'confirmed', 'confirmed_at', 'created_at'];

function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function subscribersCsv(subscribers: Subscriber[]): string {
  const rows = subscribers.map((s) => [
    s.id,
    s.email ?? '',
    s.webhookUrl ?? '',
    s.componentIds.join(' '),
    String(s.confirmedAt !== null),
    s.confirmedAt?.toISOString() ?? '',
    s.createdAt.toISOString(),
  ]);
  return [COLUMNS, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}
