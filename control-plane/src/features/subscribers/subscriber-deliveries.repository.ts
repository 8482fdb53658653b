// The subscriber outbox: rows enqueued in the transaction that changed an incident or a
// maintenance window (or added a subscriber), claimed with FOR UPDATE SKIP LOCKED by any replica,
// leased while being sent, and retried until delivered or out of attempts.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tx } from '../../db/tx.js';
import type { SubscriberNotice } from './subscriber-notice.js';
import { CONFIRMATION_EVENT, type ClaimedSubscriberDelivery, type DeliveryPayload, type PagePayload, type SubscriberDeliveryOutcome } from './subscriber-delivery.js';
import { jsonColumn } from '../../db/json-column.js';

export interface SubscriberDeliveriesRepository {
  /** One row per confirmed subscriber each notice concerns (all of the page, or a component named). */
  enqueueNotices(tx: Tx, notices: SubscriberNotice[], now: Date): Promise<number>;
  enqueueConfirmation(tx: Tx, subscriberId: string, page: PagePayload, now: Date): Promise<void>;
  /** Claims up to `limit` due rows, leased until `leaseUntil`. */
  claimDue(now: Date, limit: number, leaseUntil: Date): Promise<ClaimedSubscriberDelivery[]>;
  record(outcomes: SubscriberDeliveryOutcome[]): Promise<void>;
  /** When the earliest pending row falls due; null when none waits. */
  nextDue(): Promise<Date | null>;
}

const uuidArray = (ids: string[]) => `{${ids.join(',')}}`;

export function createSubscriberDeliveriesRepository(em: () => EntityManager): SubscriberDeliveriesRepository {
  const run = (sql: string, params: unknown[], tx: EntityManager = em()) => tx.execute<Record<string, unknown>[]>(sql, params);

  /** What the notices' mails name: their pages and services. */
  async function namesFor(tx: Tx, notices: SubscriberNotice[]) {
    const [pages, services] = await Promise.all([
      run('select id, slug, title from status_pages where id = any(?::uuid[])', [uuidArray([...new Set(notices.map((n) => n.statusPageId))])], tx),
      run('select id, name from services where id = any(?::uuid[])', [uuidArray([...new Set(notices.flatMap((n) => n.serviceIds))])], tx),
    ]);
    return {
      pages: new Map(pages.map((p) => [String(p.id), { id: String(p.id), slug: String(p.slug), title: String(p.title) }])),
      services: new Map(services.map((s) => [String(s.id), String(s.name)])),
    };
  }

  return {
    async enqueueNotices(tx, notices, now) {
      if (notices.length === 0) return 0;
      const { pages, services } = await namesFor(tx, notices);
      const rows = notices.flatMap((n) => {
        const page = pages.get(n.statusPageId);
        if (!page) return [];
        const payload: DeliveryPayload = {
          kind: 'notice',
          event: n.event,
          status_page: page,
          subject: {
            type: n.event.startsWith('incident') ? 'incident' : 'maintenance',
            id: n.subjectId,
            title: n.title,
            status: n.status,
            message: n.message,
            starts_at: n.startsAt.toISOString(),
            ends_at: n.endsAt?.toISOString() ?? null,
            components: n.serviceIds.flatMap((id) => (services.has(id) ? [{ id, name: services.get(id)! }] : [])),
          },
        };
        return [{ event: n.event, status_page_id: n.statusPageId, service_ids: n.serviceIds, payload }];
      });
      // One JSON parameter for every notice; the join picks the subscribers each one concerns.
      const inserted = await run(
        `insert into subscriber_deliveries (id, subscriber_id, event, payload, next_attempt_at)
         select gen_random_uuid(), s.id, n.event, n.payload, ?
           from json_to_recordset(?::json) as n (event text, status_page_id uuid, service_ids jsonb, payload jsonb)
           join status_page_subscribers s on s.status_page_id = n.status_page_id and s.confirmed_at is not null
          where jsonb_array_length(s.component_ids) = 0 or jsonb_array_length(n.service_ids) = 0
             or exists (select 1 from jsonb_array_elements_text(s.component_ids) c (id) join jsonb_array_elements_text(n.service_ids) x (id) using (id))
         returning id`,
        [now.toISOString(), JSON.stringify(rows)],
        tx,
      );
      return inserted.length;
    },

    async enqueueConfirmation(tx, subscriberId, page, now) {
      const payload: DeliveryPayload = { kind: 'confirmation', status_page: page };
      await run('insert into subscriber_deliveries (id, subscriber_id, event, payload, next_attempt_at) values (gen_random_uuid(), ?, ?, ?::jsonb, ?)', [
        subscriberId,
        CONFIRMATION_EVENT,
        JSON.stringify(payload),
        now.toISOString(),
      ], tx);
    },

    async claimDue(now, limit, leaseUntil) {
      const rows = await run(
        `with due as (
           select id from subscriber_deliveries where status = 'pending' and next_attempt_at <= ?
            order by next_attempt_at limit ${Math.floor(limit)} for update skip locked
         ), leased as (
           update subscriber_deliveries d set next_attempt_at = ? from due where d.id = due.id returning d.id, d.subscriber_id, d.payload, d.attempts, d.created_at
         )
         select l.id, l.payload, l.attempts, s.id as subscriber_id, s.email, s.webhook_url
           from leased l join status_page_subscribers s on s.id = l.subscriber_id order by l.created_at`,
        [now.toISOString(), leaseUntil.toISOString()],
      );
      return rows.map((r) => ({
        id: String(r.id),
        attempts: Number(r.attempts),
        payload: jsonColumn<DeliveryPayload>(r.payload),
        subscriber: { id: String(r.subscriber_id), email: (r.email as string | null) ?? null, webhookUrl: (r.webhook_url as string | null) ?? null },
      }));
    },

    async record(outcomes) {
      if (outcomes.length === 0) return;
      const rows = outcomes.map((o) => ({
        id: o.id,
        status: o.error === undefined ? 'delivered' : o.retryAt ? 'pending' : 'failed',
        at: o.at.toISOString(),
        error: o.error ?? null,
        retry_at: o.retryAt?.toISOString() ?? null,
      }));
      await run(
        `update subscriber_deliveries d set status = v.status, attempts = d.attempts + 1, last_error = v.error,
                delivered_at = case when v.status = 'delivered' then v.at else d.delivered_at end,
                next_attempt_at = coalesce(v.retry_at, d.next_attempt_at)
           from json_to_recordset(?::json) as v (id uuid, status text, at timestamptz, error text, retry_at timestamptz)
          where d.id = v.id`,
        [JSON.stringify(rows)],
      );
    },

    async nextDue() {
      const [row] = await run("select min(next_attempt_at) as at from subscriber_deliveries where status = 'pending'", []);
      return row?.at ? new Date(row.at as string) : null;
    },
  };
}
