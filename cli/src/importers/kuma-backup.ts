// An Uptime Kuma version 1 JSON backup (Settings → Backup → Export) as KumaData. The backup is
// what the frontend held: {version, notificationList, monitorList}, each monitor as the server's
// toJSON() wrote it (camelCase keys, tags with their names). It has no maintenance, status
// pages, proxies nor Docker hosts: the importer says so.
import { isTrue, numberAt, parsedJson, snakeCase, text, type KumaData, type KumaMonitor, type Row } from './kuma-data.js';

const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a parsed JSON document is such a backup. */
export function isKumaBackup(json: unknown): json is Row {
  return isRow(json) && Array.isArray(json.monitorList) && Array.isArray(json.notificationList);
}

export function readKumaBackup(backup: Row): KumaData {
  const version = text(backup.version);
  return {
    description: `an Uptime Kuma ${version ?? '1.x'} JSON backup`,
    major: version?.startsWith('2.') ? 2 : 1,
    complete: false,
    monitors: (backup.monitorList as unknown[]).filter(isRow).map(monitorOf),
    notifications: (backup.notificationList as unknown[]).filter(isRow).map((n) => {
      const config = parsedJson(n.config);
      return { id: Number(n.id), name: String(n.name ?? ''), active: n.active === undefined || isTrue(n.active), config: isRow(config) ? config : {} };
    }),
    proxies: new Map(),
    dockerHosts: new Map(),
    maintenances: [],
    statusPages: [],
    serverTimezone: undefined,
  };
}

function monitorOf(raw: Row): KumaMonitor {
  const row: Row = {};
  for (const [key, value] of Object.entries(raw)) row[snakeCase(key)] = value;
  const notifications = isRow(raw.notificationIDList) ? raw.notificationIDList : {};
  return {
    ...row,
    id: Number(raw.id),
    name: String(raw.name ?? ''),
    type: String(raw.type ?? ''),
    tags: (Array.isArray(raw.tags) ? raw.tags : []).filter(isRow).map((t) => ({ name: String(t.name ?? ''), value: text(t.value) ?? '' })),
    notification_ids: Object.entries(notifications)
      .filter(([, on]) => isTrue(on))
      .map(([id]) => numberAt(id))
      .filter((id): id is number => id !== undefined),
    accepted_statuscodes: Array.isArray(raw.accepted_statuscodes) ? raw.accepted_statuscodes.map(String) : ['200-299'],
  };
}
