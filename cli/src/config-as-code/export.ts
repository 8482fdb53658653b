// `outpost export`: the organization in the file format. Secrets are never written: each
// becomes an ${ENV} reference (an organization secret, the variable of its own name), which
// apply reads as "keep the secret the server has".
import { stringify } from 'yaml';
import type { ApiClient } from '../api-client.js';
import { KINDS, type Entry } from './kinds.js';
import { readRemoteState } from './plan.js';
import { isOrgSecretReference, readPath, withPath } from './secret-options.js';

export async function exportOrganization(api: ApiClient): Promise<string> {
  const remote = await readRemoteState(api);
  const file: Record<string, Entry[]> = {};
  for (const kind of KINDS) {
    file[kind.section] = (remote.rows.get(kind) ?? []).map((row) => {
      const entry = kind.toEntry(row, remote.refs);
      for (const field of kind.writeOnly ?? []) delete entry[field];
      const secrets = kind.secrets;
      if (secrets && entry[secrets.field]) {
        let holder: Entry = entry[secrets.field];
        for (const key of secrets.keys) {
          const secret = readPath(holder, key);
          // A reference to an organization secret is no secret; a proxy stays as answered, its password masked (apply keeps it).
          if (secret !== undefined && !isOrgSecretReference(secret)) holder = withPath(holder, key, `\${${envName(entry[kind.keyField], key)}}`);
        }
        entry[secrets.field] = holder;
      }
      return entry;
    });
  }
  const ordered = Object.fromEntries(['secrets', 'services', 'heartbeats', 'notification_channels', 'alert_rules', 'maintenance_windows', 'status_pages'].map((s) => [s, file[s] ?? []]));
  return stringify(ordered, { lineWidth: 0 });
}

/** "Ops pager" + integration_key -> OPS_PAGER_INTEGRATION_KEY; "api" + oauth2.client_secret -> API_OAUTH2_CLIENT_SECRET. */
function envName(name: string, key: string): string {
  const base = `${name}_${key}`.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return /^[0-9]/.test(base) ? `_${base}` : base;
}
