// `outpost incidents`: what a team tells the people who depend on a status page, as a
// timeline of updates. Resolving is an update whose status is resolved, as in the dashboard.
import type { ApiClient } from '../api-client.js';
import { render, type Column, type OutputFormat } from '../output.js';
import { findServiceId } from './resources.js';
import { instant } from './silences.js';
import { findStatusPageId } from './status-page-ref.js';

type Row = Record<string, any>;
type Print = (text: string) => void;

const INCIDENT_COLUMNS: Column<Row>[] = [
  ['ID', (i) => i.id],
  ['STATUS', (i) => i.status],
  ['IMPACT', (i) => i.impact],
  ['TITLE', (i) => i.title],
  ['AFFECTED', (i) => i.affected.map((a: Row) => a.service_name)],
  ['STARTED', (i) => i.starts_at],
  ['RESOLVED', (i) => i.resolved_at],
  ['LATEST UPDATE', (i) => i.updates.at(-1)?.message],
];

/** What `outpost incidents resolve` posts when no --message is given. */
export const RESOLVED_MESSAGE = 'This incident has been resolved.';

export interface OpenIncidentFlags {
  page: string;
  title: string;
  message: string;
  status?: string;
  impact?: string;
  service?: string[];
  started?: string;
  alert?: string;
}

export function incidentCommands(api: ApiClient, format: OutputFormat, print: Print) {
  const show = (i: Row | Row[]) => print(render(i, format, INCIDENT_COLUMNS));
  const incidentsOf = async (page: string) => `/status-pages/${await findStatusPageId(api, page)}/incidents`;
  const addUpdate = async (id: string, page: string, body: Row) => show(await api.post<Row>(`${await incidentsOf(page)}/${encodeURIComponent(id)}/updates`, body));
  return {
    async list(page: string, status: string) {
      show(await api.get<Row[]>(`${await incidentsOf(page)}?status=${encodeURIComponent(status)}`));
    },
    async open(f: OpenIncidentFlags) {
      const affected = await Promise.all((f.service ?? []).map(async (ref) => ({ service_id: await findServiceId(api, ref) })));
      show(
        await api.post<Row>(await incidentsOf(f.page), {
          title: f.title,
          message: f.message,
          affected,
          ...(f.status ? { status: f.status } : {}),
          ...(f.impact ? { impact: f.impact } : {}),
          ...(f.started ? { starts_at: instant(f.started, '--started') } : {}),
          ...(f.alert ? { alert_id: f.alert } : {}),
        }),
      );
    },
    update: (id: string, page: string, status: string, message: string) => addUpdate(id, page, { status, message }),
    resolve: (id: string, page: string, message?: string) => addUpdate(id, page, { status: 'resolved', message: message ?? RESOLVED_MESSAGE }),
  };
}
