// Escalation policies, and their timers: one row per firing alert saying which step is due
// when. Timers are claimed with FOR UPDATE SKIP LOCKED, so they survive restarts and any
// number of replicas can run them.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tx } from '../../db/tx.js';
import type { EscalationPolicy } from './policy.js';

export interface DueTimer {
  alertId: string;
  alertStatus: string;
  policy: EscalationPolicy;
  stepIndex: number;
  round: number;
  dueAt: Date;
}

export interface EscalationTimer {
  alertId: string;
  policyId: string;
  stepIndex: number;
  round: number;
  dueAt: Date;
}

export interface EscalationRepository {
  insert(p: Omit<EscalationPolicy, 'createdAt' | 'updatedAt'>): Promise<EscalationPolicy>;
  find(organizationId: string, id: string, tx?: Tx): Promise<EscalationPolicy | null>;
  list(organizationId: string): Promise<EscalationPolicy[]>;
  update(id: string, p: Pick<EscalationPolicy, 'name' | 'steps' | 'repeat'>): Promise<EscalationPolicy>;
  delete(id: string): Promise<void>;
  /** The policies with these ids, whatever their organization (the caller checks it). */
  findMany(tx: Tx, ids: string[]): Promise<Map<string, EscalationPolicy>>;
  setTimers(tx: Tx, timers: EscalationTimer[]): Promise<void>;
  clearTimers(tx: Tx, alertIds: string[]): Promise<void>;
  /** Runs `handle` on each due timer inside the transaction that holds its lock. */
  withDueTimers(now: Date, limit: number, handle: (tx: Tx, timer: DueTimer) => Promise<void>): Promise<number>;
  /** When the earliest timer is due; null when none is set. */
  nextDue(): Promise<Date | null>;
}

const COLUMNS = 'id, organization_id, name, steps, repeat, created_at, updated_at';

export function createEscalationRepository(em: () => EntityManager): EscalationRepository {
  const run = (sql: string, params: unknown[], tx: EntityManager = em()) => tx.execute<Record<string, unknown>[]>(sql, params);
  return {
    async insert(p) {
      const [row] = await run(`insert into escalation_policies (id, organization_id, name, steps, repeat) values (?, ?, ?, ?::jsonb, ?::jsonb) returning ${COLUMNS}`, [
        p.id, p.organizationId, p.name, JSON.stringify(p.steps), JSON.stringify(p.repeat),
      ]);
      return fromRow(row!);
    },
    async find(organizationId, id, tx) {
      const [row] = await run(`select ${COLUMNS} from escalation_policies where id = ? and organization_id = ?`, [id, organizationId], tx);
      return row ? fromRow(row) : null;
    },
    async list(organizationId) {
      return (await run(`select ${COLUMNS} from escalation_policies where organization_id = ? order by created_at, id`, [organizationId])).map(fromRow);
    },
    async update(id, p) {
      const [row] = await run(`update escalation_policies set name = ?, steps = ?::jsonb, repeat = ?::jsonb, updated_at = now() where id = ? returning ${COLUMNS}`, [
        p.name, JSON.stringify(p.steps), JSON.stringify(p.repeat), id,
      ]);
      return fromRow(row!);
    },
    async delete(id) {
      await run('delete from escalation_policies where id = ?', [id]);
    },
    async findMany(tx, ids) {
      const rows = await run(`select ${COLUMNS} from escalation_policies where id = any(?::uuid[])`, [`{${ids.join(',')}}`], tx);
      return new Map(rows.map((r) => [String(r.id), fromRow(r)]));
    },
    async setTimers(tx, timers) {
      if (timers.length === 0) return;
      await run(
        `insert into escalation_timers (alert_id, policy_id, step_index, round, due_at)
           select * from json_to_recordset(?::json) as v (alert_id uuid, policy_id uuid, step_index int, round int, due_at timestamptz)
         on conflict (alert_id) do update set policy_id = excluded.policy_id, step_index = excluded.step_index, round = excluded.round, due_at = excluded.due_at`,
        [JSON.stringify(timers.map((t) => ({ alert_id: t.alertId, policy_id: t.policyId, step_index: t.stepIndex, round: t.round, due_at: t.dueAt.toISOString() })))],
        tx,
      );
    },
    async clearTimers(tx, alertIds) {
      if (alertIds.length === 0) return;
      await run('delete from escalation_timers where alert_id = any(?::uuid[])', [`{${alertIds.join(',')}}`], tx);
    },
    async withDueTimers(now, limit, handle) {
      return em().transactional(async (tx) => {
        const rows = await run(
          `select t.alert_id, t.step_index, t.round, t.due_at, a.status as alert_status,
                  p.id, p.organization_id, p.name, p.steps, p.repeat, p.created_at, p.updated_at
             from escalation_timers t join alerts a on a.id = t.alert_id join escalation_policies p on p.id = t.policy_id
            where t.due_at <= ? order by t.due_at limit ${limit} for update of t skip locked`,
          [now.toISOString()],
          tx,
        );
        for (const r of rows) {
          await handle(tx, {
            alertId: String(r.alert_id),
            alertStatus: String(r.alert_status),
            policy: fromRow(r),
            stepIndex: Number(r.step_index),
            round: Number(r.round),
            dueAt: new Date(r.due_at as string),
          });
        }
        return rows.length;
      });
    },
    async nextDue() {
      const [row] = await run('select min(due_at) as due from escalation_timers', []);
      return row?.due ? new Date(row.due as string) : null;
    },
  };
}

function fromRow(r: Record<string, unknown>): EscalationPolicy {
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    name: String(r.name),
    steps: r.steps as EscalationPolicy['steps'],
    repeat: r.repeat as EscalationPolicy['repeat'],
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}
