// Carries out a plan: creates and updates in dependency order (a rule after the channels it
// names), then the services' depends_on (they name services and heartbeats that may be new),
// then deletes in the reverse order (a rule before the service it watches).
import type { ApiClient } from '../api-client.js';
import { CliError } from '../cli-error.js';
import { DEPENDS_ON, KINDS, heartbeatKind, channelKind, serviceKind, statusPageKind, type Kind, type Row } from './kinds.js';
import type { Change, Plan } from './plan.js';
import { isOrgSecretReference, maskedProxy, readPath, withPath } from './secret-options.js';

const SYMBOL = { create: '+', update: '~', replace: '-/+', delete: '-' } as const;

export function formatPlan(plan: Plan): string[] {
  const lines: string[] = [];
  for (const change of plan.changes) {
    lines.push(`${SYMBOL[change.action]} ${change.action} ${change.kind.label} "${change.key}"`);
    if (change.action === 'update' || change.action === 'replace') {
      for (const c of change.changes) lines.push(`    ${c.field}: ${show(c.from, change.kind, c.field)} -> ${show(c.to, change.kind, c.field)}`);
    }
  }
  const count = (action: Change['action']) => plan.changes.filter((c) => c.action === action).length;
  lines.push(
    plan.changes.length === 0
      ? 'No changes: the organization matches the file.'
      : `Plan: ${count('create')} to create, ${count('update')} to update, ${count('replace')} to replace, ${count('delete')} to delete.`,
  );
  if (plan.unmanaged.length > 0) {
    lines.push(`${plan.unmanaged.length} resource(s) not in the file are kept (--prune deletes them): ${plan.unmanaged.map((u) => `${u.kind.label} "${u.key}"`).join(', ')}`);
  }
  return lines;
}

/** A secret is shown masked: the plan is printed, and may be logged. */
function show(value: unknown, kind: Kind, field: string): string {
  if (value === undefined || value === null) return 'null';
  if (kind.writeOnly?.includes(field)) return '(secret)';
  if (kind.secrets?.field === field && value && typeof value === 'object') {
    let shown = value as Row;
    for (const key of kind.secrets.keys) {
      const secret = readPath(shown, key);
      if (typeof secret === 'string' && !isOrgSecretReference(secret)) shown = withPath(shown, key, '(secret)');
    }
    for (const key of kind.secrets.urls ?? []) if (typeof shown[key] === 'string') shown = { ...shown, [key]: maskedProxy(shown[key]) };
    return JSON.stringify(shown);
  }
  return JSON.stringify(value);
}

/** Stops at the first refused change; what was done stays done, and a new apply finishes it. */
export async function applyPlan(api: ApiClient, plan: Plan, progress: (line: string) => void): Promise<void> {
  let done = 0;
  try {
    await applyChanges(api, plan, (line) => {
      done++;
      progress(line);
    });
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    throw new CliError(`apply stopped after ${done} of ${plan.changes.length} changes: ${err.message}`);
  }
}

async function applyChanges(api: ApiClient, plan: Plan, progress: (line: string) => void): Promise<void> {
  const { refs } = plan;
  const track = (kind: Kind, row: Row) => {
    if (kind === serviceKind) refs.services.add(row.id, row.name);
    if (kind === heartbeatKind && row.service_id) refs.services.add(row.service_id, row.name);
    if (kind === channelKind) refs.channels.add(row.id, row.name);
    if (kind === statusPageKind) refs.pages.add(row.id, row.slug);
  };
  const forget = (kind: Kind, row: Row) => {
    if (kind === serviceKind) refs.services.remove(row.id);
    if (kind === heartbeatKind && row.service_id) refs.services.remove(row.service_id);
    if (kind === channelKind) refs.channels.remove(row.id);
    if (kind === statusPageKind) refs.pages.remove(row.id);
  };
  /** Services' depends_on, sent once every service and heartbeat of the file exists. */
  const laterDependencies: { id: string; names: string[] }[] = [];
  const sentNow = (kind: Kind, fields: readonly string[]) => (kind === serviceKind ? fields.filter((f) => f !== DEPENDS_ON) : fields);
  const create = async (change: Extract<Change, { entry: unknown }>) => {
    const { kind, entry } = change;
    const row = await api.post<Row>(kind.path, kind.toBody(entry, sentNow(kind, kind.fields), refs));
    track(kind, row);
    if (kind === serviceKind && entry.depends_on.length > 0) laterDependencies.push({ id: row.id, names: entry.depends_on });
  };

  for (const kind of KINDS) {
    for (const change of plan.changes.filter((c) => c.kind === kind)) {
      if (change.action === 'create') await create(change);
      else if (change.action === 'update') {
        const fields = change.changes.map((c) => c.field);
        const now = sentNow(kind, fields);
        if (now.length > 0) await api.put(`${kind.path}/${change.current.id}`, kind.toBody(change.entry, now, refs, change.current));
        if (now.length < fields.length) laterDependencies.push({ id: change.current.id, names: change.entry.depends_on });
      } else if (change.action === 'replace') {
        await api.del(`${kind.path}/${change.current.id}`);
        forget(kind, change.current);
        await create(change);
      } else continue;
      progress(`${change.action}d ${kind.label} "${change.key}"`);
    }
  }
  for (const { id, names } of laterDependencies) {
    await api.put(`${serviceKind.path}/${id}`, { depends_on: names.map((n) => refs.services.idOf(n)) });
  }
  for (const kind of [...KINDS].reverse()) {
    for (const change of plan.changes) {
      if (change.kind !== kind || change.action !== 'delete') continue;
      await api.del(`${kind.path}/${change.current.id}`);
      forget(kind, change.current);
      progress(`deleted ${kind.label} "${change.key}"`);
    }
  }
}
