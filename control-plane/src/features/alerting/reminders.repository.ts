import type { EntityManager } from '@mikro-orm/postgresql';
import { alertFromRow } from './alerts.repository.js';
import type { RemindersRepository } from './reminders.js';

// The rule's interval is read afresh: a rule changed or disabled since the alert opened decides the next time.
const CLAIM_SQL = `update alerts a set remind_at = ?::timestamptz + make_interval(mins => r.minutes)
   from (select a2.id, (select (ar.condition->>'repeat_interval_minutes')::int from alert_rules ar where ar.id = a2.alert_rule_id and ar.enabled) as minutes
           from alerts a2
          where a2.status = 'firing' and a2.silenced_by is null and a2.remind_at <= ?
          order by a2.remind_at limit ? for update skip locked) r
  where a.id = r.id
  returning a.*, r.minutes`;

export function createRemindersRepository(em: () => EntityManager): RemindersRepository {
  return {
    async claimDue(tx, at, limit) {
      const iso = at.toISOString();
      const rows = await tx.execute<Record<string, unknown>[]>(CLAIM_SQL, [iso, iso, limit]);
      // An interval gone (rule changed or disabled) leaves remind_at null: no reminder, and nothing due.
      return rows.filter((r) => r.minutes !== null).map(alertFromRow);
    },
    async nextDue() {
      const [row] = await em().execute<{ due: string | null }[]>(`select min(remind_at) as due from alerts where status = 'firing' and remind_at is not null and silenced_by is null`, []);
      return row?.due ? new Date(row.due) : null;
    },
  };
}
