// The cluster bus on PostgreSQL: NOTIFY through the pool (or inside a transaction, so that a
// message leaves only on commit) and LISTEN on one dedicated connection. That connection can
// drop (a failover, pg_terminate_backend, a network cut): the bus reconnects with backoff and
// then asks its users to resynchronize, because NOTIFY keeps nothing for a listener that was away.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { queryBound } from '../db/tx.js';
import type { Query } from '../db/pooled-sql.js';
import type { Logger } from '../logger.js';
import type { ClusterBus, Handler } from './cluster-bus.js';
import { decodeEnvelope, encodeEnvelope, type ClusterMessage, type ClusterMessageKind } from './cluster-message.js';

const CHANNEL = 'outpost_cluster';
/** PostgreSQL refuses payloads of 8,000 bytes or more. */
const MAX_PAYLOAD_BYTES = 7_999;
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;
/** A connection cut without a FIN stays silent: a probe this often finds it. */
const PROBE_INTERVAL_MS = 5_000;
const PROBE_TIMEOUT_MS = 3_000;
/** How long a request that must hold everywhere waits for the other replicas to confirm. */
const CONFIRM_TIMEOUT_MS = 2_000;

export interface PostgresBusDeps {
  url: string;
  /** Pooled statements, for publishing outside a transaction. */
  query: Query;
  logger: Logger;
  confirmTimeoutMs?: number;
  /** Whether anyone could publish: a replica alone misses nothing while its connection is cut silently, so it does not probe it. */
  othersAlive?: () => boolean;
}

export function createPostgresBus({ url, query, logger, confirmTimeoutMs = CONFIRM_TIMEOUT_MS, othersAlive = () => true }: PostgresBusDeps): ClusterBus {
  const replicaId = randomUUID();
  const handlers = new Map<ClusterMessageKind, Handler<ClusterMessageKind>[]>();
  const resyncHandlers: (() => void | Promise<void>)[] = [];
  /** Messages this replica waits to see confirmed, by confirmation id: what to do with each confirmation. */
  const confirmations = new Map<string, (from: string) => void>();
  let client: pg.Client | undefined;
  /** Connections lost so far, and how many of those losses a finished resynchronization covers. */
  let losses = 0;
  let resynchronized = 0;
  let stopped = false;
  let attempt = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let probeTimer: NodeJS.Timeout | undefined;
  // Messages are handled one after another, in the order PostgreSQL delivered them.
  let queue: Promise<void> = Promise.resolve();
  const handleInOrder = (work: () => void | Promise<void>) => {
    queue = queue.then(work).catch((err) => logger.error({ err }, 'handling a cluster message failed'));
  };

  function dispatch(payload: string): void {
    const envelope = decodeEnvelope(payload);
    if (!envelope) return void logger.warn({ payload: payload.slice(0, 200) }, 'ignored a malformed cluster message');
    const { from, message, confirm } = envelope;
    if (from === replicaId) return;
    if (message.k === 'ack') return void confirmations.get(message.id)?.(from);
    const forKind = handlers.get(message.k) ?? [];
    handleInOrder(async () => {
      let handled = true;
      for (const handler of forKind) {
        try {
          await handler(message as never);
        } catch (err) {
          handled = false;
          logger.error({ err, kind: message.k }, 'handling a cluster message failed');
        }
      }
      // Confirmed only once handled: the publisher's request is answered on that promise.
      if (handled && confirm) await send({ k: 'ack', id: confirm });
    });
  }

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString: url, keepAlive: true, connectionTimeoutMillis: PROBE_TIMEOUT_MS, application_name: `outpost-bus-${replicaId.slice(0, 8)}` });
    next.on('notification', (n) => n.channel === CHANNEL && n.payload && dispatch(n.payload));
    next.on('error', (err) => lost(next, err));
    next.on('end', () => lost(next, new Error('the listening connection ended')));
    try {
      await next.connect();
      await next.query(`listen ${CHANNEL}`);
    } catch (err) {
      await next.end().catch(() => undefined);
      throw err;
    }
    if (stopped) return void (await next.end().catch(() => undefined));
    client = next;
  }

  function lost(which: pg.Client, err: unknown): void {
    if (client !== which) return;
    client = undefined;
    losses++;
    which.end().catch(() => undefined);
    if (stopped) return;
    logger.warn({ err }, 'the cluster bus lost its PostgreSQL connection; reconnecting');
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    const backoff = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** attempt++);
    reconnectTimer = setTimeout(() => {
      connect()
        .then(() => {
          if (stopped) return;
          attempt = 0;
          logger.info('the cluster bus is listening again; resynchronizing');
          const covered = losses;
          for (const resync of resyncHandlers) handleInOrder(resync);
          handleInOrder(() => void (resynchronized = covered));
        })
        .catch((err) => {
          if (stopped) return;
          logger.warn({ err }, 'the cluster bus could not reconnect yet');
          scheduleReconnect();
        });
    }, backoff * (0.5 + Math.random() / 2));
  }

  async function probe(): Promise<void> {
    const current = client;
    if (!current || !othersAlive()) return;
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('the listening connection did not answer')), PROBE_TIMEOUT_MS).unref());
    try {
      await Promise.race([current.query('select 1'), timeout]);
    } catch (err) {
      lost(current, err);
    }
  }

  const notifySql = (placeholder: string) => `select pg_notify('${CHANNEL}', ${placeholder})`;
  const encode = (message: ClusterMessage, confirm?: string) => {
    const payload = encodeEnvelope({ from: replicaId, message, confirm });
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) throw new Error(`cluster message ${message.k} is too large for NOTIFY`);
    return payload;
  };
  const send = async (message: ClusterMessage, confirm?: string) => void (await query(notifySql('$1'), [encode(message, confirm)]));

  return {
    replicaId,
    async publish(message, tx) {
      if (tx) await queryBound(tx, notifySql('?'), [encode(message)]);
      else await send(message);
    },
    async publishConfirmed(message, peers) {
      const waiting = new Set(peers);
      if (waiting.size === 0) {
        await send(message);
        return [];
      }
      const id = randomUUID();
      let timer: NodeJS.Timeout | undefined;
      const confirmed = new Promise<void>((resolve) => {
        confirmations.set(id, (from) => waiting.delete(from) && waiting.size === 0 && resolve());
        timer = setTimeout(resolve, confirmTimeoutMs);
      });
      try {
        await send(message, id);
        await confirmed;
      } finally {
        clearTimeout(timer);
        confirmations.delete(id);
      }
      return [...waiting];
    },
    on(kind, handler) {
      handlers.set(kind, [...(handlers.get(kind) ?? []), handler as unknown as Handler<ClusterMessageKind>]);
    },
    onResync(handler) {
      resyncHandlers.push(handler);
    },
    listening: () => client !== undefined && resynchronized === losses,
    async start() {
      await connect();
      probeTimer = setInterval(() => void probe(), PROBE_INTERVAL_MS);
      probeTimer.unref();
    },
    async stop() {
      stopped = true;
      clearTimeout(reconnectTimer);
      clearInterval(probeTimer);
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
      await queue;
    },
  };
}
