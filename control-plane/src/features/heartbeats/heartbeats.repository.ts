import type { EntityManager } from '@mikro-orm/postgresql';
import type { Expectation, HeartbeatTiming } from './heartbeat-schedule.js';

export type Heartbeat = HeartbeatTiming & {
  id: string;
  organizationId: string;
  serviceId: string;
  name: string;
  key: string;
  graceSeconds: number;
  maxRuntimeSeconds: number | null;
  status: string | null;
  lastPingAt: Date | null;
  lastStartedAt: Date | null;
  /** The next ping due (its deadline is grace_seconds later). */
  expectedAt: Date | null;
  createdAt: Date;
};

/** What a heartbeat is expected to do; stored with the expectation it gives. */
export type HeartbeatSettings = HeartbeatTiming & { graceSeconds: number; maxRuntimeSeconds: number | null };

export interface HeartbeatsRepository {
  list(organizationId: string): Promise<Heartbeat[]>;
  find(organizationId: string, id: string): Promise<Heartbeat | null>;
  findByKey(key: string): Promise<Heartbeat | null>;
  /** Stores the heartbeat for an already created service. */
  insert(h: HeartbeatSettings & Expectation & { id: string; organizationId: string; serviceId: string; key: string; createdAt: Date }): Promise<void>;
  update(id: string, c: HeartbeatSettings & Expectation): Promise<void>;
  /** Records a ping (success or failure): the next expectation, and the end of a started run. */
  pinged(id: string, at: Date, next: Expectation): Promise<void>;
  /** Records a start; with a max runtime, the run's deadline is that long after. */
  started(id: string, at: Date): Promise<void>;
  /**
   * Claims the heartbeats whose deadline passed and moves each to the expectation `next` gives
   * (in one transaction, rows locked with SKIP LOCKED): one missed result per claim.
   */
  claimOverdue(now: Date, limit: number, next: (h: Heartbeat) => Expectation): Promise<Heartbeat[]>;
  /** Claims the started runs past their max runtime, ending them (one failing result each). */
  claimOverrun(now: Date, limit: number): Promise<Heartbeat[]>;
  /** The earliest deadline of a ping or of a started run; null when none is set. */
  nextDeadline(): Promise<Date | null>;
}

const COLUMNS = `h.id, h.organization_id, h.service_id, s.name, h.key, h.interval_seconds, h.schedule, h.timezone, h.grace_seconds,
  h.max_runtime_seconds, s.status, h.last_ping_at, h.last_start_at, h.expected_at, h.created_at`;
const SELECT = `select ${COLUMNS} from heartbeats h join services s on s.id = h.service_id`;
const iso = (d: Date | null) => d?.toISOString() ?? null;

export function createHeartbeatsRepository(em: () => EntityManager): HeartbeatsRepository {
  const run = (sql: string, params: unknown[]) => em().execute<Record<string, unknown>[]>(sql, params);
  const byIds = async (ids: unknown[]) =>
    ids.length === 0 ? [] : (await run(`${SELECT} where h.id in (${ids.map(() => '?').join(',')})`, ids)).map(fromRow);
  return {
    async list(organizationId) {
      return (await run(`${SELECT} where h.organization_id = ? order by h.created_at, h.id`, [organizationId])).map(fromRow);
    },
    async find(organizationId, id) {
      const [row] = await run(`${SELECT} where h.id = ? and h.organization_id = ?`, [id, organizationId]);
      return row ? fromRow(row) : null;
    },
    async findByKey(key) {
      const [row] = await run(`${SELECT} where h.key = ?`, [key]);
      return row ? fromRow(row) : null;
    },
    async insert(h) {
      await run(
        `insert into heartbeats (id, organization_id, service_id, key, interval_seconds, schedule, timezone, grace_seconds, max_runtime_seconds, expected_at, deadline_at, created_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [h.id, h.organizationId, h.serviceId, h.key, h.intervalSeconds, h.schedule, h.timezone, h.graceSeconds, h.maxRuntimeSeconds, iso(h.expectedAt), iso(h.deadlineAt), iso(h.createdAt)],
      );
    },
    async update(id, c) {
      // A run in progress keeps its start; its deadline follows the new max runtime.
      await run(
        `update heartbeats set interval_seconds = ?, schedule = ?, timezone = ?, grace_seconds = ?, max_runtime_seconds = ?::int, expected_at = ?, deadline_at = ?,
           run_deadline_at = case when run_deadline_at is null or ?::int is null then null else last_start_at + make_interval(secs => ?::int) end
         where id = ?`,
        [c.intervalSeconds, c.schedule, c.timezone, c.graceSeconds, c.maxRuntimeSeconds, iso(c.expectedAt), iso(c.deadlineAt), c.maxRuntimeSeconds, c.maxRuntimeSeconds, id],
      );
    },
    async pinged(id, at, next) {
      await run('update heartbeats set last_ping_at = ?, expected_at = ?, deadline_at = ?, run_deadline_at = null where id = ?', [iso(at), iso(next.expectedAt), iso(next.deadlineAt), id]);
    },
    async started(id, at) {
      await run(
        `update heartbeats set last_start_at = ?::timestamptz,
           run_deadline_at = case when max_runtime_seconds is null then null else ?::timestamptz + make_interval(secs => max_runtime_seconds) end
         where id = ?`,
        [iso(at), iso(at), id],
      );
    },
    async claimOverdue(now, limit, next) {
      // Committed before the missed results are ingested, as the deadline moves with the claim.
      return em().transactional(async (tx) => {
        const rows = (await tx.execute<Record<string, unknown>[]>(
          `${SELECT} where h.deadline_at <= ? order by h.deadline_at limit ${limit} for update of h skip locked`,
          [iso(now)],
        )).map(fromRow);
        if (rows.length === 0) return [];
        const moves = rows.map((h) => ({ id: h.id, ...next(h) }));
        await tx.execute(
          `update heartbeats h set expected_at = m.expected_at::timestamptz, deadline_at = m.deadline_at::timestamptz
             from (values ${moves.map(() => '(?::uuid, ?, ?)').join(', ')}) as m (id, expected_at, deadline_at)
            where h.id = m.id`,
          moves.flatMap((m) => [m.id, iso(m.expectedAt), iso(m.deadlineAt)]),
        );
        return rows;
      });
    },
    async claimOverrun(now, limit) {
      const ids = await run(
        `update heartbeats set run_deadline_at = null where id in (
           select id from heartbeats where run_deadline_at <= ? order by run_deadline_at limit ${limit} for update skip locked
         ) returning id`,
        [iso(now)],
      );
      return byIds(ids.map((r) => r.id));
    },
    async nextDeadline() {
      const [row] = await run('select least((select min(deadline_at) from heartbeats), (select min(run_deadline_at) from heartbeats)) as due', []);
      return dateOrNull(row?.due);
    },
  };
}

const dateOrNull = (v: unknown) => (v ? new Date(v as string) : null);

function fromRow(r: Record<string, unknown>): Heartbeat {
  const common = {
    id: String(r.id),
    organizationId: String(r.organization_id),
    serviceId: String(r.service_id),
    name: String(r.name),
    key: String(r.key),
    timezone: String(r.timezone),
    graceSeconds: Number(r.grace_seconds),
    maxRuntimeSeconds: r.max_runtime_seconds == null ? null : Number(r.max_runtime_seconds),
    status: (r.status as string | null) ?? null,
    lastPingAt: dateOrNull(r.last_ping_at),
    lastStartedAt: dateOrNull(r.last_start_at),
    expectedAt: dateOrNull(r.expected_at),
    createdAt: new Date(r.created_at as string),
  };
  return r.schedule == null
    ? { ...common, intervalSeconds: Number(r.interval_seconds), schedule: null }
    : { ...common, intervalSeconds: null, schedule: String(r.schedule) };
}
