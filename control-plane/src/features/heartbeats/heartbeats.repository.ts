import type { EntityManager } from '@mikro-orm/postgresql';

export interface Heartbeat {
  id: string;
  organizationId: string;
  serviceId: string;
  name: string;
  key: string;
  intervalSeconds: number;
  graceSeconds: number;
  status: string | null;
  lastPingAt: Date | null;
  createdAt: Date;
}

export interface HeartbeatsRepository {
  list(organizationId: string): Promise<Heartbeat[]>;
  find(organizationId: string, id: string): Promise<Heartbeat | null>;
  findByKey(key: string): Promise<Heartbeat | null>;
  /** Stores the heartbeat for an already created service. */
  insert(h: { id: string; organizationId: string; serviceId: string; key: string; intervalSeconds: number; graceSeconds: number }): Promise<void>;
  update(id: string, c: { intervalSeconds: number; graceSeconds: number }): Promise<void>;
  /** Records a ping and moves the deadline to interval + grace from now. */
  pinged(id: string, at: Date): Promise<void>;
  started(id: string, at: Date): Promise<void>;
  /** Claims the heartbeats whose deadline passed, clearing it (one missed result each). */
  claimOverdue(now: Date, limit: number): Promise<Heartbeat[]>;
}

const SELECT = `select h.id, h.organization_id, h.service_id, s.name, h.key, h.interval_seconds, h.grace_seconds, s.status, h.last_ping_at, h.created_at
  from heartbeats h join services s on s.id = h.service_id`;

export function createHeartbeatsRepository(em: () => EntityManager): HeartbeatsRepository {
  const run = (sql: string, params: unknown[]) => em().execute<Record<string, unknown>[]>(sql, params);
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
      await run('insert into heartbeats (id, organization_id, service_id, key, interval_seconds, grace_seconds) values (?, ?, ?, ?, ?, ?)', [
        h.id, h.organizationId, h.serviceId, h.key, h.intervalSeconds, h.graceSeconds,
      ]);
    },
    async update(id, c) {
      await run(
        `update heartbeats set interval_seconds = ?, grace_seconds = ?,
           deadline_at = case when last_ping_at is null then null else last_ping_at + make_interval(secs => ?::int + ?::int) end where id = ?`,
        [c.intervalSeconds, c.graceSeconds, c.intervalSeconds, c.graceSeconds, id],
      );
    },
    async pinged(id, at) {
      await run('update heartbeats set last_ping_at = ?, deadline_at = ?::timestamptz + make_interval(secs => interval_seconds + grace_seconds) where id = ?', [at.toISOString(), at.toISOString(), id]);
    },
    async started(id, at) {
      await run('update heartbeats set last_start_at = ? where id = ?', [at.toISOString(), id]);
    },
    async claimOverdue(now, limit) {
      // One short statement: the claim is committed before the missed results are ingested.
      const ids = await run(
        `update heartbeats set deadline_at = null where id in (
           select id from heartbeats where deadline_at <= ? order by deadline_at limit ${limit} for update skip locked
         ) returning id`,
        [now.toISOString()],
      );
      if (ids.length === 0) return [];
      return (await run(`${SELECT} where h.id in (${ids.map(() => '?').join(',')})`, ids.map((r) => r.id))).map(fromRow);
    },
  };
}

function fromRow(r: Record<string, unknown>): Heartbeat {
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    serviceId: String(r.service_id),
    name: String(r.name),
    key: String(r.key),
    intervalSeconds: Number(r.interval_seconds),
    graceSeconds: Number(r.grace_seconds),
    status: (r.status as string | null) ?? null,
    lastPingAt: r.last_ping_at ? new Date(r.last_ping_at as string) : null,
    createdAt: new Date(r.created_at as string),
  };
}
