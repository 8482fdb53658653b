// The everyday commands: services, check, alerts and agents, each a thin call of the REST API.
import { ApiClient } from '../api-client.js';
import { CliError } from '../cli-error.js';
import { render, type Column, type OutputFormat } from '../output.js';

type Row = Record<string, any>;
type Print = (text: string) => void;

const SERVICE_COLUMNS: Column<Row>[] = [
  ['ID', (s) => s.id],
  ['NAME', (s) => s.name],
  ['TYPE', (s) => s.check_type],
  ['ENDPOINT', (s) => s.endpoint],
  ['INTERVAL', (s) => `${s.check_interval_seconds}s`],
  // A paused service keeps its status, but nothing checks it: PAUSED says what matters now.
  ['STATUS', (s) => (s.paused ? 'PAUSED' : (s.status ?? 'PENDING'))],
  ['LOCATIONS', (s) => s.locations],
];
const ALERT_COLUMNS: Column<Row>[] = [
  ['ID', (a) => a.id],
  ['STATUS', (a) => a.status],
  ['SEVERITY', (a) => a.severity],
  ['SERVICE', (a) => a.service_name ?? a.service_id],
  ['MESSAGE', (a) => a.message],
  ['OPENED', (a) => a.created_at],
];
const AGENT_COLUMNS: Column<Row>[] = [
  ['ID', (a) => a.id],
  ['NAME', (a) => a.name],
  ['LOCATION', (a) => a.location],
  ['STATUS', (a) => a.status],
  ['VERSION', (a) => a.version],
  ['LAST SEEN', (a) => a.last_seen_at],
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A service named by id or by name; a name must be unique in the organization. */
export async function findServiceId(api: ApiClient, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  const matches = (await api.get<Row[]>('/services')).filter((s) => s.name === ref);
  if (matches.length === 0) throw new CliError(`no service named "${ref}"`);
  if (matches.length > 1) throw new CliError(`${matches.length} services are named "${ref}"; give its id`);
  return matches[0]!.id;
}

export function resourceCommands(api: ApiClient, format: OutputFormat, print: Print) {
  return {
    async listServices() {
      print(render(await api.get<Row[]>('/services'), format, SERVICE_COLUMNS));
    },
    async getService(ref: string) {
      print(render(await api.get<Row>(`/services/${await findServiceId(api, ref)}`), format, SERVICE_COLUMNS));
    },
    async createService(body: Row) {
      print(render(await api.post<Row>('/services', body), format, SERVICE_COLUMNS));
    },
    async removeService(ref: string) {
      const id = await findServiceId(api, ref);
      await api.del(`/services/${id}`);
      print(format === 'json' ? JSON.stringify({ deleted: id }) : `deleted service ${id}`);
    },
    async checkService(ref: string) {
      const id = await findServiceId(api, ref);
      const reply = await api.post<Row>(`/services/${id}/check`);
      print(format === 'json' ? JSON.stringify({ service_id: id, ...reply }) : `check enqueued for service ${id}`);
    },
    async listAlerts(status: string) {
      print(render(await api.get<Row[]>(`/alerts?status=${encodeURIComponent(status)}`), format, ALERT_COLUMNS));
    },
    async acknowledgeAlert(id: string) {
      print(render(await api.post<Row>(`/alerts/${encodeURIComponent(id)}/acknowledge`), format, ALERT_COLUMNS));
    },
    async resolveAlert(id: string) {
      print(render(await api.post<Row>(`/alerts/${encodeURIComponent(id)}/resolve`), format, ALERT_COLUMNS));
    },
    async listAgents() {
      print(render(await api.get<Row[]>('/agents'), format, AGENT_COLUMNS));
    },
    async createAgent(name: string, location: string) {
      const agent = await api.post<Row>('/agents', { name, location });
      // The registration token is shown once; the table form says so, with the commands that use it.
      const install = (agent.install_commands?.deb ?? []).map((c: string) => `  ${c}`).join('\n');
      print(
        format === 'json'
          ? JSON.stringify(agent, null, 2)
          : `${render(agent, 'table', AGENT_COLUMNS)}\n\ntoken (shown once): ${agent.token}${install ? `\n\ninstall and start it from the Debian package:\n${install}` : ''}`,
      );
    },
  };
}
