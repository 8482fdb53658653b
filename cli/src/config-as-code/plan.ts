// The plan: what apply would change to make the organization match the file, in the file's
// terms, computed from the server's current state before anything is sent.
import { isDeepStrictEqual } from 'node:util';
import type { ApiClient } from '../api-client.js';
import { KINDS, channelKind, ruleKind, statusPageKind, type Entry, type Kind, type Row } from './kinds.js';
import { FileError, isUnresolvedSecret, type LoadedFile } from './load-file.js';
import { NameIndex, type References } from './references.js';
import { isOrgSecretReference, maskedProxy, readPath, withPath } from './secret-options.js';

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

export type Change =
  | { action: 'create'; kind: Kind; key: string; entry: Entry }
  | { action: 'update'; kind: Kind; key: string; entry: Entry; current: Row; changes: FieldChange[] }
  | { action: 'replace'; kind: Kind; key: string; entry: Entry; current: Row; changes: FieldChange[] }
  | { action: 'delete'; kind: Kind; key: string; current: Row };

export interface Plan {
  changes: Change[];
  /** Resources the file does not name, kept because --prune was not given. */
  unmanaged: { kind: Kind; key: string }[];
  refs: References;
}

export interface RemoteState {
  rows: Map<Kind, Row[]>;
  refs: References;
}

export async function readRemoteState(api: ApiClient): Promise<RemoteState> {
  const [allServices, channels, policies, ...lists] = await Promise.all([
    api.get<Row[]>('/services'),
    api.get<Row[]>('/notification-channels'),
    api.get<Row[]>('/escalation-policies'),
    ...KINDS.map((k) => k.list(api)),
  ]);
  const rows = new Map(KINDS.map((k, i) => [k, lists[i]!]));
  const refs: References = {
    services: new NameIndex('service', allServices as { id: string; name: string }[]),
    channels: new NameIndex('notification channel', channels as { id: string; name: string }[]),
    policies: new NameIndex('escalation policy', policies as { id: string; name: string }[]),
    pages: new NameIndex('status page', (rows.get(statusPageKind) ?? []).map((p) => ({ id: p.id, name: p.slug }))),
  };
  return { rows, refs };
}

export function makePlan(loaded: LoadedFile, remote: RemoteState, prune: boolean): Plan {
  const { file, where } = loaded;
  const changes: Change[] = [];
  const unmanaged: Plan['unmanaged'] = [];
  const problems: string[] = [];
  checkReferences(loaded, remote, prune, problems);

  for (const kind of KINDS) {
    const entries = file[kind.section] as Entry[];
    const rows = remote.rows.get(kind) ?? [];
    const byKey = new Map<string, Row[]>();
    for (const row of rows) byKey.set(row[kind.keyField], [...(byKey.get(row[kind.keyField]) ?? []), row]);
    const named = new Set<string>();
    entries.forEach((entry, i) => {
      const key = entry[kind.keyField] as string;
      if (named.has(key)) problems.push(`${where([kind.section, i, kind.keyField])}: a second ${kind.label} "${key}"; ${kind.keyField}s must be unique`);
      named.add(key);
      const matches = byKey.get(key) ?? [];
      if (matches.length > 1) problems.push(`${where([kind.section, i, kind.keyField])}: the server has ${matches.length} ${kind.label}s "${key}"; rename or delete all but one first`);
      const current = matches[0];
      for (const problem of kind.check?.(entry, current) ?? []) problems.push(`${where([kind.section, i, ...problem.path])}: ${problem.message}`);
      if (!current) {
        for (const [path, variable] of unresolvedSecrets(entry)) {
          problems.push(`${where([kind.section, i, ...path])}: environment variable ${variable} is not set (needed to create ${kind.label} "${key}")`);
        }
        changes.push({ action: 'create', kind, key, entry });
        return;
      }
      const fieldChanges = diff(kind, entry, current, remote.refs);
      if (fieldChanges.length === 0) return;
      const replace = fieldChanges.some((c) => kind.replacedOn?.includes(c.field));
      changes.push({ action: replace ? 'replace' : 'update', kind, key, entry, current, changes: fieldChanges });
    });
    for (const row of rows) {
      const key = row[kind.keyField] as string;
      if (named.has(key)) continue;
      if (prune) changes.push({ action: 'delete', kind, key, current: row });
      else unmanaged.push({ kind, key });
    }
  }
  if (problems.length > 0) throw new FileError(problems);
  resendReplacedChannels(changes, remote);
  return { changes, unmanaged, refs: remote.refs };
}

/** A replaced channel gets a new id: the rules that name it are sent its new id. */
function resendReplacedChannels(changes: Change[], remote: RemoteState): void {
  const replaced = new Set(changes.filter((c) => c.action === 'replace' && c.kind === channelKind).map((c) => c.key));
  if (replaced.size === 0) return;
  for (const rule of remote.rows.get(ruleKind) ?? []) {
    const entry = ruleKind.toEntry(rule, remote.refs);
    if (!(entry.channels ?? []).some((name: string) => replaced.has(name))) continue;
    const existing = changes.find((c) => c.kind === ruleKind && c.key === rule.name);
    if (existing?.action === 'delete' || existing?.action === 'create') continue;
    if (existing?.action === 'update') {
      if (!existing.changes.some((c) => c.field === 'channels')) existing.changes.push({ field: 'channels', from: entry.channels, to: existing.entry.channels });
      continue;
    }
    // Not in the file, or unchanged: its channels stay as they are, under the new ids.
    changes.push({ action: 'update', kind: ruleKind, key: rule.name, entry, current: rule, changes: [{ field: 'channels', from: entry.channels, to: entry.channels }] });
  }
}

function diff(kind: Kind, entry: Entry, current: Row, refs: References): FieldChange[] {
  const now = kind.toEntry(current, refs);
  const changes: FieldChange[] = [];
  for (const field of kind.fields) {
    let wanted = entry[field];
    const had = now[field];
    // A write-only field the file leaves out keeps what the server holds.
    if (kind.writeOnly?.includes(field) && wanted === undefined) continue;
    if (kind.secrets?.field === field && wanted && had) wanted = withKnownSecrets(kind, wanted, had);
    if (!same(kind, field, wanted, had)) changes.push({ field, from: had, to: wanted });
  }
  return changes;
}

/**
 * Secrets the planner cannot see through the mask count as unchanged; a changed tail does not.
 * A {{secrets.NAME}} reference holds no secret: it is compared as written.
 */
function withKnownSecrets(kind: Kind, wanted: Entry, had: Entry): Entry {
  let out = wanted;
  for (const key of kind.secrets!.keys) {
    const value = readPath(out, key);
    const stored = readPath(had, key);
    if (typeof value !== 'string' || typeof stored !== 'string') continue;
    if (isUnresolvedSecret(value) || (!isOrgSecretReference(value) && !isOrgSecretReference(stored) && kind.secrets!.matches(value, stored))) out = withPath(out, key, stored);
  }
  for (const key of kind.secrets!.urls ?? []) {
    const value = out[key];
    if (typeof value === 'string' && maskedProxy(value) === had[key]) out = { ...out, [key]: had[key] };
  }
  return out;
}

/** The ${ENV} references left in an entry: only secrets may keep one (load-file.ts), and a new resource needs each. */
function unresolvedSecrets(value: unknown, path: (string | number)[] = []): [(string | number)[], string][] {
  if (isUnresolvedSecret(value)) return [[path, String(value).slice(2, -1)]];
  if (Array.isArray(value)) return value.flatMap((item, i) => unresolvedSecrets(item, [...path, i]));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => unresolvedSecrets(v, [...path, k]));
  return [];
}

function same(kind: Kind, field: string, wanted: unknown, had: unknown): boolean {
  if (kind.instants?.includes(field) && typeof wanted === 'string' && typeof had === 'string') return Date.parse(wanted) === Date.parse(had);
  if (kind.unordered?.includes(field) && Array.isArray(wanted) && Array.isArray(had)) {
    // As sets: the API drops repeats too.
    const asSet = (values: unknown[]) => [...new Set(values.map(String))].sort();
    return isDeepStrictEqual(asSet(wanted), asSet(had));
  }
  return isDeepStrictEqual(normal(wanted), normal(had));
}

/** Absent and null are the same; key order is not compared. */
function normal(value: unknown): unknown {
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map(normal);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined && v !== null)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, normal(v)]),
    );
  }
  return value;
}

/** Every name the file refers to must be in the file or stay on the server. */
function checkReferences(loaded: LoadedFile, remote: RemoteState, prune: boolean, problems: string[]): void {
  const { file, where } = loaded;
  // A heartbeat is a service too: rules, windows and pages name it like one.
  const named = {
    services: new Set([...file.services.map((s) => s.name), ...file.heartbeats.map((h) => h.name)]),
    channels: new Set(file.notification_channels.map((c) => c.name)),
  };
  const exists = (index: NameIndex, set: Set<string>, name: string) => set.has(name) || (!prune && index.has(name));
  const service = (name: string, path: (string | number)[]) => {
    if (!exists(remote.refs.services, named.services, name)) problems.push(`${where(path)}: no service or heartbeat named "${name}"${prune && remote.refs.services.has(name) ? ' stays (--prune deletes it)' : ''}`);
  };
  file.alert_rules.forEach((rule, i) => {
    if (rule.service !== null) service(rule.service, ['alert_rules', i, 'service']);
    rule.selector?.services?.forEach((name, j) => service(name, ['alert_rules', i, 'selector', 'services', j]));
    rule.channels?.forEach((name, j) => {
      if (!exists(remote.refs.channels, named.channels, name)) problems.push(`${where(['alert_rules', i, 'channels', j])}: no notification channel named "${name}"`);
    });
    if (rule.escalation_policy && !remote.refs.policies.has(rule.escalation_policy)) {
      problems.push(`${where(['alert_rules', i, 'escalation_policy'])}: no escalation policy named "${rule.escalation_policy}"`);
    }
  });
  file.services.forEach((s, i) => s.depends_on.forEach((name, j) => service(name, ['services', i, 'depends_on', j])));
  file.maintenance_windows.forEach((w, i) => w.services.forEach((name, j) => service(name, ['maintenance_windows', i, 'services', j])));
  file.status_pages.forEach((p, i) => {
    p.services.forEach((name, j) => service(name, ['status_pages', i, 'services', j]));
    p.groups.forEach((g, j) => g.services.forEach((name, k) => service(name, ['status_pages', i, 'groups', j, 'services', k])));
  });
  const pages = new Set(file.status_pages.map((p) => p.slug));
  file.maintenance_windows.forEach((w, i) =>
    w.status_pages.forEach((slug, j) => {
      if (!exists(remote.refs.pages, pages, slug)) problems.push(`${where(['maintenance_windows', i, 'status_pages', j])}: no status page "${slug}"${prune && remote.refs.pages.has(slug) ? ' stays (--prune deletes it)' : ''}`);
    }),
  );
}
