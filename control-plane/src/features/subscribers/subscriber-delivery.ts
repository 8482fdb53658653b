// What one row of the subscriber outbox carries: everything its mail or webhook says, fixed
// when it was enqueued (a later rename of the page or a service does not rewrite the past).
import type { SubscriberEvent } from './subscriber-notice.js';

export interface PagePayload {
  id: string;
  slug: string;
  title: string;
}

export interface NoticeSubject {
  type: 'incident' | 'maintenance';
  id: string;
  title: string;
  status: string;
  message: string;
  starts_at: string;
  ends_at: string | null;
  /** The services concerned; empty: the whole page. */
  components: { id: string; name: string }[];
}

export type DeliveryPayload =
  | { kind: 'confirmation'; status_page: PagePayload }
  | { kind: 'notice'; event: SubscriberEvent; status_page: PagePayload; subject: NoticeSubject };

/** The event column of a confirmation mail's row. */
export const CONFIRMATION_EVENT = 'subscription_confirmation';

export interface ClaimedSubscriberDelivery {
  id: string;
  attempts: number;
  payload: DeliveryPayload;
  subscriber: { id: string; email: string | null; webhookUrl: string | null };
}

export interface SubscriberDeliveryOutcome {
  id: string;
  at: Date;
  /** Absent: delivered. */
  error?: string;
  /** When a failed delivery is tried again; null: never. */
  retryAt: Date | null;
}
