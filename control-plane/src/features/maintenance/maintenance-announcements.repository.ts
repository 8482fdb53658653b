// Which announcements of maintenance occurrences were told (maintenance_announcements), and the
// occurrences that ended, for status page histories.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AnnouncementsRepository } from './maintenance-announcements.js';

export interface EndedOccurrence {
  windowId: string;
  startsAt: Date;
  announcedAt: Date;
}

export function createAnnouncementsRepository(em: () => EntityManager): AnnouncementsRepository & {
  /** Recurring windows' occurrences told as ended, newest first. */
  ended(windowIds: string[], since: Date, before: Date, limit: number): Promise<EndedOccurrence[]>;
} {
  return {
    async claim(tx, windowId, startsAt, event) {
      const rows = await tx.execute<unknown[]>(
        'insert into maintenance_announcements (window_id, occurrence_starts_at, event) values (?, ?, ?) on conflict do nothing returning window_id',
        [windowId, startsAt.toISOString(), event],
      );
      return rows.length > 0;
    },
    async wasTold(tx, windowId, startsAt, event) {
      const rows = await tx.execute<unknown[]>('select 1 from maintenance_announcements where window_id = ? and occurrence_starts_at = ? and event = ?', [windowId, startsAt.toISOString(), event]);
      return rows.length > 0;
    },
    async ended(windowIds, since, before, limit) {
      if (windowIds.length === 0) return [];
      const rows = await em().execute<Record<string, unknown>[]>(
        `select window_id, occurrence_starts_at, announced_at from maintenance_announcements
          where window_id = any(?::uuid[]) and event = 'ended' and occurrence_starts_at >= ? and occurrence_starts_at < ?
          order by occurrence_starts_at desc limit ${limit}`,
        [`{${windowIds.join(',')}}`, since.toISOString(), before.toISOString()],
      );
      return rows.map((r) => ({ windowId: String(r.window_id), startsAt: new Date(r.occurrence_starts_at as string), announcedAt: new Date(r.announced_at as string) }));
    },
  };
}
