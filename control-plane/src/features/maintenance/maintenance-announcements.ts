// Tells status page subscribers about announced maintenance: when an occurrence enters its
// announcement period (scheduled), opens (started) and closes (ended). Each is recorded in
// maintenance_announcements, so every replica may run this and each is told once; a due
// timer wakes it at the next boundary instead of a poll. Only a few windows name status
// pages, so a round reads them all.
import type { Clock } from '../../clock.js';
import type { Tx } from '../../db/tx.js';
import type { DueWork } from '../../jobs/due-timer.js';
import type { SubscriberEvent, SubscriberNotice, SubscriberNotifier } from '../subscribers/subscriber-notice.js';
import { occurrencesFrom, type Occurrence } from './maintenance-schedule.js';
import type { MaintenanceRepository, MaintenanceWindow } from './maintenance.repository.js';

const HOUR_MS = 3_600_000;
/** An occurrence that ended while no replica ran is still told of this long after. */
const LATE_ENDINGS_MS = 24 * HOUR_MS;
/** Occurrences of a recurring window looked at each round. */
const AHEAD = 3;

export interface AnnouncementsRepository {
  /** Records that an event of an occurrence was told; false when it already was. */
  claim(tx: Tx, windowId: string, occurrenceStartsAt: Date, event: string): Promise<boolean>;
  wasTold(tx: Tx, windowId: string, occurrenceStartsAt: Date, event: string): Promise<boolean>;
}

type Phase = 'scheduled' | 'started' | 'ended';
const EVENT: Record<Phase, SubscriberEvent> = { scheduled: 'maintenance_scheduled', started: 'maintenance_started', ended: 'maintenance_ended' };
const STATUS: Record<Phase, string> = { scheduled: 'scheduled', started: 'in_progress', ended: 'completed' };

const announcedFrom = (w: MaintenanceWindow, o: Occurrence) => new Date(o.startsAt.getTime() - w.announceHoursBefore * HOUR_MS);

/** What an occurrence calls for at `now`: the phase it is in. */
function phaseAt(w: MaintenanceWindow, o: Occurrence, now: Date): Phase | null {
  if (now >= o.endsAt) return 'ended';
  if (now >= o.startsAt) return 'started';
  if (now >= announcedFrom(w, o)) return 'scheduled';
  return null;
}

function sentence(phase: Phase, o: Occurrence): string {
  const from = o.startsAt.toISOString().replace('T', ' ').slice(0, 16);
  const to = o.endsAt.toISOString().replace('T', ' ').slice(0, 16);
  if (phase === 'scheduled') return `Maintenance is scheduled from ${from} to ${to} UTC.`;
  if (phase === 'started') return `Maintenance is in progress until ${to} UTC.`;
  return 'Maintenance has ended.';
}

export function maintenanceAnnouncements(deps: {
  windows: MaintenanceRepository;
  announcements: AnnouncementsRepository;
  subscribers: SubscriberNotifier;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  clock: Clock;
}): DueWork {
  const { windows, announcements, subscribers, transaction, clock } = deps;
  return {
    async run() {
      const now = clock.now();
      const told = await transaction(async (tx) => {
        const notices: SubscriberNotice[] = [];
        for (const w of await windows.announced(tx)) {
          for (const o of occurrencesFrom(w, new Date(now.getTime() - LATE_ENDINGS_MS), AHEAD)) {
            const phase = phaseAt(w, o, now);
            if (!phase) continue;
            // An ending nobody heard begin is not news.
            if (phase === 'ended' && !(await announcements.wasTold(tx, w.id, o.startsAt, 'started'))) continue;
            if (!(await announcements.claim(tx, w.id, o.startsAt, phase))) continue;
            for (const statusPageId of w.statusPageIds) {
              notices.push({ event: EVENT[phase], statusPageId, serviceIds: w.serviceIds, title: w.name, message: sentence(phase, o), status: STATUS[phase], subjectId: w.id, startsAt: o.startsAt, endsAt: o.endsAt });
            }
          }
        }
        await subscribers.enqueue(tx, notices);
        return notices.length;
      });
      if (told > 0) subscribers.wake();
      return told;
    },
    async nextDue() {
      const now = clock.now();
      let next: number | null = null;
      for (const w of await windows.announced()) {
        for (const o of occurrencesFrom(w, now, AHEAD)) {
          for (const at of [announcedFrom(w, o), o.startsAt, o.endsAt]) {
            if (at > now && (next === null || at.getTime() < next)) next = at.getTime();
          }
        }
      }
      return next === null ? null : new Date(next);
    },
  };
}

type ShownOccurrence = { occurrence: Occurrence; phase: 'upcoming' | 'in_progress' };

/** The phase of each occurrence a status page shows now: upcoming (announced) or in progress. */
export function shownOccurrences(w: MaintenanceWindow, now: Date): ShownOccurrence[] {
  return occurrencesFrom(w, now, AHEAD).flatMap((o): ShownOccurrence[] => {
    const phase = phaseAt(w, o, now);
    if (phase === 'started') return [{ occurrence: o, phase: 'in_progress' as const }];
    if (phase === 'scheduled') return [{ occurrence: o, phase: 'upcoming' as const }];
    return [];
  });
}
