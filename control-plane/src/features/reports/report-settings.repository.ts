// The monthly report e-mail settings of organizations, and the claim that makes each month's
// report go out once however many replicas run the job.
import type { EntityManager } from '@mikro-orm/postgresql';
import { jsonColumn } from '../../db/json-column.js';

export interface ReportSettings {
  enabled: boolean;
  recipients: string[];
}

export interface DueOrganization {
  organizationId: string;
  name: string;
}

export interface Claim {
  recipients: string[];
  /** What last_sent_month was before the claim, to put back if the mail fails. */
  previous: string | null;
}

export interface ReportSettingsRepository {
  get(organizationId: string): Promise<ReportSettings>;
  /** `sentThrough`: a month to count as sent already (never moves last_sent_month back). */
  save(organizationId: string, settings: ReportSettings, sentThrough: Date | null): Promise<void>;
  /** An organization whose report of the month starting at `month` is due, other than `passed`. */
  nextDue(month: Date, passed: string[]): Promise<DueOrganization | null>;
  /** Marks the month sent unless it already is (or the report was turned off); null then. */
  claim(organizationId: string, month: Date): Promise<Claim | null>;
  /** Undoes a claim whose mail could not be sent, so a later round tries again. */
  release(organizationId: string, month: Date, previous: string | null): Promise<void>;
}

const day = (d: Date) => d.toISOString().slice(0, 10);
const recipientsOf = (v: unknown) => jsonColumn<string[]>(v);

export function createReportSettingsRepository(em: () => EntityManager): ReportSettingsRepository {
  const run = (sql: string, params: unknown[]) => em().execute<Record<string, unknown>[]>(sql, params);
  return {
    async get(organizationId) {
      const [row] = await run('select monthly_enabled, recipients from report_settings where organization_id = ?', [organizationId]);
      return row ? { enabled: Boolean(row.monthly_enabled), recipients: recipientsOf(row.recipients) } : { enabled: false, recipients: [] };
    },

    async save(organizationId, { enabled, recipients }, sentThrough) {
      // greatest() ignores nulls, and keeps a month the job claimed meanwhile.
      await run(
        `insert into report_settings (organization_id, monthly_enabled, recipients, last_sent_month) values (?, ?, ?::jsonb, ?::date)
         on conflict (organization_id) do update set monthly_enabled = excluded.monthly_enabled, recipients = excluded.recipients,
           last_sent_month = greatest(report_settings.last_sent_month, excluded.last_sent_month), updated_at = now()`,
        [organizationId, enabled, JSON.stringify(recipients), sentThrough && day(sentThrough)],
      );
    },

    async nextDue(month, passed) {
      const [row] = await run(
        `select r.organization_id, o.name from report_settings r join organizations o on o.id = r.organization_id
          where r.monthly_enabled and jsonb_array_length(r.recipients) > 0 and (r.last_sent_month is null or r.last_sent_month < ?::date)
            ${passed.length ? `and r.organization_id not in (${passed.map(() => '?').join(',')})` : ''}
          order by r.organization_id limit 1`,
        [day(month), ...passed],
      );
      return row ? { organizationId: String(row.organization_id), name: String(row.name) } : null;
    },

    // One statement: a replica claiming at the same moment waits for this row, then finds the month taken.
    async claim(organizationId, month) {
      const [row] = await run(
        `with old as (select organization_id, last_sent_month from report_settings
                       where organization_id = ? and monthly_enabled and (last_sent_month is null or last_sent_month < ?::date) for update)
         update report_settings r set last_sent_month = ?::date, updated_at = now() from old
          where r.organization_id = old.organization_id returning r.recipients, old.last_sent_month::text as previous`,
        [organizationId, day(month), day(month)],
      );
      return row ? { recipients: recipientsOf(row.recipients), previous: (row.previous as string | null) ?? null } : null;
    },

    async release(organizationId, month, previous) {
      await run('update report_settings set last_sent_month = ?::date where organization_id = ? and last_sent_month = ?::date', [previous, organizationId, day(month)]);
    },
  };
}
