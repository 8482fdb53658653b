// Subscribers as CSV: addresses come from anonymous visitors, which csv() keeps from running as formulas.
import { csv } from '../../csv.js';
import type { Subscriber } from './subscribers.repository.js';

const COLUMNS = ['id', 'email', 'webhook_url', 'component_ids', 'confirmed', 'confirmed_at', 'created_at'];

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
  return csv(COLUMNS, rows);
}
