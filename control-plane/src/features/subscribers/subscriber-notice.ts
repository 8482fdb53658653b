// What the status page features tell subscribers, and the outbox they tell it through. The
// incidents and maintenance code (the page's owner) builds notices; this feature decides who
// hears them and delivers them.
import type { EntityManager } from '@mikro-orm/postgresql';

export type SubscriberEvent = 'incident_opened' | 'incident_updated' | 'incident_resolved' | 'maintenance_scheduled' | 'maintenance_started' | 'maintenance_ended';

export interface SubscriberNotice {
  event: SubscriberEvent;
  statusPageId: string;
  /** The services concerned; a subscriber who chose components hears only of notices naming one of them. Empty: concerns the whole page. */
  serviceIds: string[];
  /** Incident title or maintenance window name. */
  title: string;
  /** The update's message, or a sentence for maintenance. */
  message: string;
  /** investigating|identified|monitoring|resolved for incidents; scheduled|in_progress|completed for maintenance. */
  status: string;
  /** incident id or maintenance window id */
  subjectId: string;
  startsAt: Date;
  endsAt: Date | null;
}

export interface SubscriberNotifier {
  /** Enqueues one delivery per confirmed subscriber concerned, inside the caller's transaction (the outbox). */
  enqueue(tx: EntityManager, notices: SubscriberNotice[]): Promise<void>;
  /** Run the subscriber dispatcher now (after the transaction committed). */
  wake(): void;
}
