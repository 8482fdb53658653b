// The audit trail: who changed what, when, from where. Every writer (the generic middleware of
// /api/v1, sign-ins, and features whose changes happen outside REST CRUD) goes through
// record(), which keeps only the fields an update changed and masks secrets before the row is
// written. Rows are never updated (a trigger refuses it); retention deletes old ones.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tx } from '../../db/tx.js';
import { changedFields } from './audit-diff.js';
import { maskSecrets } from './audit-mask.js';

export interface AuditEntry {
  /** Null for events of no organization (a failed sign-in of an unknown e-mail). */
  organizationId: string | null;
  actor: { userId?: string | null; apiKeyId?: string | null; email?: string | null };
  address: string | null;
  /** e.g. 'create' | 'update' | 'delete' | 'sign_in' | 'sign_in_failed' | 'break_glass' | 'enable' | 'disable' ... */
  action: string;
  /** e.g. 'service', 'alert_rule', 'session', 'invitation', 'sso_settings', 'totp', 'passkey', 'user' */
  resource: string;
  resourceId: string | null;
  /** Masked by the trail itself. */
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

export interface AuditTrail {
  /** Writes the entry; with `tx`, in that open transaction (it commits or rolls back with the change). */
  record(entry: AuditEntry, tx?: Tx): Promise<void>;
}

/** What the generic middleware of /api/v1 needs besides record(). */
export interface RequestAuditTrail extends AuditTrail {
  /** Writes many entries in one statement (a bulk action's services). */
  recordAll(entries: AuditEntry[]): Promise<void>;
  /** Runs a request's work; answers the resources its feature recorded itself meanwhile (the middleware then adds no row). */
  track(work: () => Promise<void>): Promise<ReadonlySet<string>>;
}

const COLUMNS = 'organization_id, actor_user_id, actor_api_key_id, actor_email, address, action, resource, resource_id, before, after';
const ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb)';

export function createAuditTrail(em: () => EntityManager): RequestAuditTrail {
  const requests = new AsyncLocalStorage<Set<string>>();
  const insert = async (entries: AuditEntry[], tx?: Tx) => {
    if (entries.length === 0) return;
    await (tx ?? em()).execute(`insert into audit_log (${COLUMNS}) values ${entries.map(() => ROW).join(', ')}`, entries.flatMap(valuesOf));
  };
  return {
    async record(entry, tx) {
      await insert([entry], tx);
      requests.getStore()?.add(entry.resource);
    },
    recordAll: (entries) => insert(entries),
    async track(work) {
      const recorded = new Set<string>();
      await requests.run(recorded, work);
      return recorded;
    },
  };
}

function valuesOf(entry: AuditEntry): unknown[] {
  const { before, after } = storedStates(entry.before ?? null, entry.after ?? null);
  return [
    entry.organizationId,
    entry.actor.userId ?? null,
    entry.actor.apiKeyId ?? null,
    entry.actor.email || null,
    entry.address,
    entry.action,
    entry.resource,
    entry.resourceId,
    before && JSON.stringify(before),
    after && JSON.stringify(after),
  ];
}

type State = Record<string, unknown> | null;

/** With both states (an update), only the fields that differ; then every secret masked. */
export function storedStates(before: State, after: State): { before: State; after: State } {
  const kept = before && after ? changedFields(before, after) : { before, after };
  return { before: maskSecrets(kept.before) as State, after: maskSecrets(kept.after) as State };
}
