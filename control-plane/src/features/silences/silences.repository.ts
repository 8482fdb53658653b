// Silences in SQL, and the facts applying them needs: the open alerts of an organization with
// what matchers read of their services.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tx } from '../../db/tx.js';
import type { SelectableService, ServiceSelector } from '../services/service-selector.js';
import type { Silence, SilenceState } from './silence.js';

export type NewSilence = Omit<Silence, 'createdAt' | 'updatedAt'>;

/** An open alert of a service, as applying silences sees it. */
export interface SilenceableAlert {
  id: string;
  organizationId: string;
  status: 'firing' | 'acknowledged';
  silencedBy: string | null;
  alertRuleId: string | null;
  service: SelectableService;
}

export interface SilenceChange {
  alertId: string;
  silencedBy: string | null;
  /** When an alert leaving a silence is next reminded of; unchanged when undefined. */
  remindAt?: Date | null;
}

export interface SilencesRepository {
  insert(s: NewSilence, nextBoundaryAt: Date | null): Promise<Silence>;
  find(organizationId: string, id: string): Promise<Silence | null>;
  list(organizationId: string, state: SilenceState | 'current' | 'all', at: Date): Promise<Silence[]>;
  update(s: Pick<Silence, 'id' | 'matchers' | 'startsAt' | 'endsAt' | 'comment'>, nextBoundaryAt: Date | null): Promise<Silence>;
  delete(id: string): Promise<void>;
  /** The silences of each organization active at `at`, the earliest made first. */
  activeFor(tx: Tx, organizationIds: string[], at: Date): Promise<Map<string, Silence[]>>;
  /** Moves the due silences to their next boundary (any replica may: SKIP LOCKED); answers how many, and their organizations. */
  claimDue(tx: Tx, at: Date, limit: number): Promise<{ claimed: number; organizations: string[] }>;
  /** The earliest boundary of any silence, or null. */
  nextDue(): Promise<Date | null>;
  openAlertsOf(tx: Tx, organizationIds: string[]): Promise<SilenceableAlert[]>;
  setSilenced(tx: Tx, changes: SilenceChange[]): Promise<void>;
}

const COLUMNS = 'id, organization_id, matchers, starts_at, ends_at, comment, created_by, created_at, updated_at';

const STATE_FILTER: Record<SilenceState | 'current' | 'all', string> = {
  pending: 'starts_at > ?',
  active: 'starts_at <= ? and ends_at > ?',
  expired: 'ends_at <= ?',
  current: 'ends_at > ?',
  all: 'true',
};

export function createSilencesRepository(em: () => EntityManager): SilencesRepository {
  const run = (sql: string, params: unknown[], on: EntityManager = em()) => on.execute<Record<string, unknown>[]>(sql, params);
  return {
    async insert(s, nextBoundaryAt) {
      const [row] = await run(
        `insert into silences (id, organization_id, matchers, starts_at, ends_at, comment, created_by, next_boundary_at) values (?, ?, ?::jsonb, ?, ?, ?, ?, ?) returning ${COLUMNS}`,
        [s.id, s.organizationId, JSON.stringify(s.matchers), s.startsAt.toISOString(), s.endsAt.toISOString(), s.comment, s.createdBy, nextBoundaryAt?.toISOString() ?? null],
      );
      return fromRow(row!);
    },
    async find(organizationId, id) {
      const [row] = await run(`select ${COLUMNS} from silences where id = ? and organization_id = ?`, [id, organizationId]);
      return row ? fromRow(row) : null;
    },
    async list(organizationId, state, at) {
      const filter = STATE_FILTER[state];
      const times = (filter.match(/\?/g) ?? []).map(() => at.toISOString());
      return (await run(`select ${COLUMNS} from silences where organization_id = ? and ${filter} order by ends_at desc, id`, [organizationId, ...times])).map(fromRow);
    },
    async update(s, nextBoundaryAt) {
      const [row] = await run(
        `update silences set matchers = ?::jsonb, starts_at = ?, ends_at = ?, comment = ?, next_boundary_at = ?, updated_at = now() where id = ? returning ${COLUMNS}`,
        [JSON.stringify(s.matchers), s.startsAt.toISOString(), s.endsAt.toISOString(), s.comment, nextBoundaryAt?.toISOString() ?? null, s.id],
      );
      return fromRow(row!);
    },
    async delete(id) {
      await run('delete from silences where id = ?', [id]);
    },
    async activeFor(tx, organizationIds, at) {
      const rows = await run(
        `select ${COLUMNS} from silences where organization_id = any(?::uuid[]) and starts_at <= ? and ends_at > ? order by created_at, id`,
        [`{${organizationIds.join(',')}}`, at.toISOString(), at.toISOString()],
        tx,
      );
      const active = new Map<string, Silence[]>();
      for (const s of rows.map(fromRow)) {
        const list = active.get(s.organizationId);
        if (list) list.push(s);
        else active.set(s.organizationId, [s]);
      }
      return active;
    },
    async claimDue(tx, at, limit) {
      const iso = at.toISOString();
      const rows = await run(
        `update silences s set next_boundary_at = case when s.starts_at > ? then s.starts_at when s.ends_at > ? then s.ends_at end
          where s.id in (select id from silences where next_boundary_at <= ? order by next_boundary_at limit ? for update skip locked)
          returning s.organization_id`,
        [iso, iso, iso, limit],
        tx,
      );
      return { claimed: rows.length, organizations: [...new Set(rows.map((r) => String(r.organization_id)))] };
    },
    async nextDue() {
      const [row] = await run('select min(next_boundary_at) as due from silences where next_boundary_at is not null', []);
      return row?.due ? new Date(row.due as string) : null;
    },
    async openAlertsOf(tx, organizationIds) {
      if (organizationIds.length === 0) return [];
      const rows = await run(
        `select a.id, a.organization_id, a.status, a.silenced_by, a.alert_rule_id, s.id as service_id, s.tags, s.environment, s.locations, s.check_type
           from alerts a join services s on s.id = a.service_id
          where a.organization_id = any(?::uuid[]) and a.status in ('firing', 'acknowledged')`,
        [`{${organizationIds.join(',')}}`],
        tx,
      );
      return rows.map((r) => ({
        id: String(r.id),
        organizationId: String(r.organization_id),
        status: r.status as SilenceableAlert['status'],
        silencedBy: (r.silenced_by as string | null) ?? null,
        alertRuleId: (r.alert_rule_id as string | null) ?? null,
        service: {
          id: String(r.service_id),
          tags: (r.tags ?? []) as string[],
          environment: (r.environment as string | null) ?? null,
          locations: (r.locations ?? []) as string[],
          checkType: String(r.check_type),
        },
      }));
    },
    async setSilenced(tx, changes) {
      if (changes.length === 0) return;
      await run(
        `update alerts a set silenced_by = v.silenced_by, remind_at = case when v.keep_reminder then a.remind_at else v.remind_at end
           from json_to_recordset(?::json) as v (id uuid, silenced_by uuid, keep_reminder boolean, remind_at timestamptz)
          where a.id = v.id`,
        [JSON.stringify(changes.map((c) => ({ id: c.alertId, silenced_by: c.silencedBy, keep_reminder: c.remindAt === undefined, remind_at: c.remindAt?.toISOString() ?? null })))],
        tx,
      );
    },
  };
}

function fromRow(r: Record<string, unknown>): Silence {
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    matchers: (typeof r.matchers === 'string' ? JSON.parse(r.matchers) : r.matchers) as ServiceSelector,
    startsAt: new Date(r.starts_at as string),
    endsAt: new Date(r.ends_at as string),
    comment: String(r.comment),
    createdBy: (r.created_by as string | null) ?? null,
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}
