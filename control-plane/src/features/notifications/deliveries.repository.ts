// The notification outbox. Rows are enqueued inside the transaction that changes an alert,
// claimed with FOR UPDATE SKIP LOCKED (any number of replicas, no leader), leased while they
// are being sent, and every attempt is recorded.
import type { EntityManager } from '@mikro-orm/postgresql';
import { fromRow as channelFromRow } from './channels.repository.js';
import type { Channel } from './channel.js';
import type { Attempt, ClaimedDelivery, NewDelivery, NotificationTargets } from './delivery.js';

export interface DeliveriesRepository {
  enqueue(tx: EntityManager, deliveries: NewDelivery[]): Promise<void>;
  /** The channels and people each alert's opening was sent to: they hear how it ends. */
  notifiedTargets(tx: EntityManager, alertIds: string[]): Promise<Map<string, NotificationTargets>>;
  /** Claims up to `limit` due deliveries, leasing them for `leaseMs`. */
  claimDue(now: Date, limit: number, leaseMs: number): Promise<ClaimedDelivery[]>;
  /** Claims every pending digest delivery with this group key, due or not. */
  claimGrouped(groupKey: string, now: Date, leaseMs: number): Promise<ClaimedDelivery[]>;
  /** Records attempts (each of one delivery or one digest) in one statement. */
  recordOutcomes(outcomes: DeliveryOutcome[]): Promise<void>;
  /** When the earliest pending delivery is due (or its lease ends); null when none is pending. */
  nextDue(): Promise<Date | null>;
  listForAlert(alertId: string): Promise<DeliveryView[]>;
}

export interface DeliveryOutcome {
  ids: string[];
  attempt: Attempt;
  /** Set when the attempt failed: absent means delivered. */
  failed?: true;
  /** When a failed attempt is tried again; null when it will not be. */
  retryAt: Date | null;
}

export interface DeliveryView {
  id: string;
  channel_id: string | null;
  /** For a delivery to a team member: their e-mail address. */
  recipient: string | null;
  event: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  history: { attempted_at: string; status_code: number | null; error: string | null; duration_ms: number }[];
}

// A channel's deliveries form one digest; a person's, per organization.
const GROUP_KEY = `coalesce(d.channel_id::text, d.organization_id::text || '/' || d.recipient)`;

const CLAIMED = `d.id, d.organization_id, d.recipient, d.payload, d.grouped, d.attempts, ${GROUP_KEY} as group_key, c.id as c_id, c.organization_id as c_organization_id, c.name as c_name,
  c.channel_type as c_channel_type, c.config as c_config, c.enabled as c_enabled, c.created_at as c_created_at, c.updated_at as c_updated_at`;

export function createDeliveriesRepository(em: () => EntityManager): DeliveriesRepository {
  const claim = (where: string, params: unknown[], limit: number, leaseUntil: Date) =>
    em().transactional(async (tx) => {
      const rows = await tx.execute<Record<string, unknown>[]>(
        `with due as (
           select d.id from deliveries d where d.status = 'pending' and ${where}
            order by d.next_attempt_at limit ${limit} for update skip locked
         ), leased as (
           update deliveries d set next_attempt_at = ? from due where d.id = due.id returning d.*
         )
         select ${CLAIMED} from leased d left join notification_channels c on c.id = d.channel_id order by d.created_at`,
        [...params, leaseUntil.toISOString()],
      );
      return rows.map(toClaimed);
    });

  return {
    async enqueue(tx, deliveries) {
      if (deliveries.length === 0) return;
      // One JSON parameter, however many deliveries an outage plans at once.
      await tx.execute(
        `insert into deliveries (id, organization_id, channel_id, recipient, alert_id, event, payload, status, grouped, next_attempt_at)
         select id, organization_id, channel_id, recipient, alert_id, event, payload, 'pending', grouped, next_attempt_at
           from json_to_recordset(?::json) as v (id uuid, organization_id uuid, channel_id uuid, recipient text, alert_id uuid, event text, payload jsonb,
             grouped boolean, next_attempt_at timestamptz)`,
        [
          JSON.stringify(
            deliveries.map((d) => ({
              id: d.id, organization_id: d.organizationId, channel_id: d.channelId, recipient: d.recipient, alert_id: d.alertId,
              event: d.payload.event, payload: d.payload, grouped: d.grouped, next_attempt_at: d.nextAttemptAt.toISOString(),
            })),
          ),
        ],
      );
    },

    async notifiedTargets(tx, alertIds) {
      const targets = new Map(alertIds.map((id) => [id, { channels: [] as string[], teams: [], recipients: [] as string[] }]));
      if (alertIds.length === 0) return targets;
      const rows = await tx.execute<{ alert_id: string; channel_id: string | null; recipient: string | null }[]>(
        "select distinct alert_id, channel_id, recipient from deliveries where alert_id = any(?::uuid[]) and event = 'alert_fired'",
        [`{${alertIds.join(',')}}`],
      );
      for (const r of rows) {
        const heard = targets.get(r.alert_id)!;
        if (r.channel_id) heard.channels.push(r.channel_id);
        if (r.recipient) heard.recipients.push(r.recipient);
      }
      return targets;
    },

    claimDue: (now, limit, leaseMs) => claim('d.next_attempt_at <= ?', [now.toISOString()], limit, new Date(now.getTime() + leaseMs)),

    claimGrouped: (groupKey, now, leaseMs) => claim(`d.grouped and ${GROUP_KEY} = ?`, [groupKey], 500, new Date(now.getTime() + leaseMs)),

    async recordOutcomes(outcomes) {
      const rows = outcomes.flatMap(({ ids, attempt, failed, retryAt }) =>
        ids.map((id) => ({
          id,
          status: !failed ? 'delivered' : retryAt ? 'pending' : 'failed',
          attempted_at: attempt.at.toISOString(),
          status_code: attempt.statusCode,
          error: attempt.error,
          duration_ms: attempt.durationMs,
          retry_at: retryAt?.toISOString() ?? null,
        })),
      );
      await em().execute(
        `with v as (
           select * from json_to_recordset(?::json) as v (id uuid, status text, attempted_at timestamptz, status_code int, error text, duration_ms int, retry_at timestamptz)
         ), updated as (
           update deliveries d set status = v.status, attempts = d.attempts + 1, last_error = v.error,
                  delivered_at = case when v.status = 'delivered' then v.attempted_at else d.delivered_at end,
                  next_attempt_at = coalesce(v.retry_at, d.next_attempt_at)
             from v where d.id = v.id
         )
         insert into delivery_attempts (delivery_id, attempted_at, status_code, error, duration_ms)
           select id, attempted_at, status_code, error, duration_ms from v`,
        [JSON.stringify(rows)],
      );
    },

    async nextDue() {
      const [row] = await em().execute<{ due: string | null }[]>("select min(next_attempt_at) as due from deliveries where status = 'pending'", []);
      return row?.due ? new Date(row.due) : null;
    },

    async listForAlert(alertId) {
      const rows = await em().execute<Record<string, unknown>[]>(
        `select d.id, d.channel_id, d.recipient, d.event, d.status, d.attempts, d.next_attempt_at, d.last_error, d.created_at, d.delivered_at,
                coalesce(json_agg(json_build_object('attempted_at', a.attempted_at, 'status_code', a.status_code, 'error', a.error, 'duration_ms', a.duration_ms)
                  order by a.attempted_at) filter (where a.id is not null), '[]') as history
           from deliveries d left join delivery_attempts a on a.delivery_id = d.id
          where d.alert_id = ? group by d.id order by d.created_at, d.id`,
        [alertId],
      );
      const iso = (v: unknown) => (v ? new Date(v as string).toISOString() : null);
      return rows.map((r) => ({
        id: String(r.id),
        channel_id: (r.channel_id as string | null) ?? null,
        recipient: (r.recipient as string | null) ?? null,
        event: String(r.event),
        status: String(r.status),
        attempts: Number(r.attempts),
        next_attempt_at: r.status === 'pending' ? iso(r.next_attempt_at) : null,
        last_error: (r.last_error as string | null) ?? null,
        created_at: iso(r.created_at)!,
        delivered_at: iso(r.delivered_at),
        history: (r.history as DeliveryView['history']).map((h) => ({ ...h, attempted_at: iso(h.attempted_at)! })),
      }));
    },
  };
}

function toClaimed(r: Record<string, unknown>): ClaimedDelivery {
  const channel = r.recipient
    ? personalEmail(String(r.group_key), String(r.organization_id), String(r.recipient))
    : channelFromRow({
        id: r.c_id, organization_id: r.c_organization_id, name: r.c_name, channel_type: r.c_channel_type,
        config: r.c_config, enabled: r.c_enabled, created_at: r.c_created_at, updated_at: r.c_updated_at,
      });
  return { id: String(r.id), channel, groupKey: String(r.group_key), payload: r.payload as ClaimedDelivery['payload'], grouped: Boolean(r.grouped), attempts: Number(r.attempts) };
}

/** A team member is reached like an e-mail channel to their address. */
function personalEmail(id: string, organizationId: string, to: string): Channel {
  const epoch = new Date(0);
  return { id, organizationId, name: to, channelType: 'email', config: { to }, enabled: true, createdAt: epoch, updatedAt: epoch };
}
