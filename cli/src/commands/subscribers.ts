// `outpost subscribers`: who hears of a status page's incidents and maintenance (admins and
// owners). Export is the API's CSV unchanged.
import type { ApiClient } from '../api-client.js';
import { render, type Column, type OutputFormat } from '../output.js';
import { findStatusPageId } from './status-page-ref.js';

type Row = Record<string, any>;
type Print = (text: string) => void;

const subscriberColumns = (serviceName: (id: string) => string): Column<Row>[] => [
  ['ID', (s) => s.id],
  ['TYPE', (s) => (s.email ? 'email' : 'webhook')],
  ['ADDRESS', (s) => s.email ?? s.webhook_url],
  // Empty: the whole page.
  ['COMPONENTS', (s) => (s.component_ids.length === 0 ? 'all' : s.component_ids.map(serviceName))],
  ['CONFIRMED', (s) => s.confirmed_at ?? 'no'],
  ['SUBSCRIBED', (s) => s.created_at],
];

export function subscriberCommands(api: ApiClient, format: OutputFormat, print: Print) {
  const subscribersOf = async (page: string) => `/status-pages/${await findStatusPageId(api, page)}/subscribers`;
  return {
    async list(page: string) {
      const subscribers = await api.get<Row[]>(await subscribersOf(page));
      if (format === 'json') return print(JSON.stringify(subscribers, null, 2));
      const chosen = subscribers.some((s) => s.component_ids.length > 0);
      const names = new Map(chosen ? (await api.get<Row[]>('/services')).map((s) => [s.id as string, s.name as string]) : []);
      print(render(subscribers, 'table', subscriberColumns((id) => names.get(id) ?? id)));
    },
    async exportCsv(page: string) {
      // As the server wrote it, CRLF line ends included: print adds the final "\n".
      print((await api.getText(`${await subscribersOf(page)}.csv`)).replace(/\n$/, ''));
    },
    async remove(id: string, page: string) {
      await api.del(`${await subscribersOf(page)}/${encodeURIComponent(id)}`);
      print(format === 'json' ? JSON.stringify({ deleted: id }) : `removed subscriber ${id}`);
    },
  };
}
