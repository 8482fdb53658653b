// The monthly report e-mails, as work for a due timer: at the start of each UTC month, the
// previous month's report goes to the recipients of every organization that turned it on.
// Each is claimed before it is sent (report_settings.last_sent_month), so replicas running
// the same job send it once; a mail that fails gives its claim back and is tried again later.
import type { Clock } from '../../clock.js';
import type { DueWork } from '../../jobs/due-timer.js';
import type { Logger } from '../../logger.js';
import type { SmtpTransport } from '../notifications/senders/smtp-transport.js';
import { previousMonth, startOfNextMonth, type ReportRange } from './report-range.js';
import { reportMail } from './report-mail.js';
import type { DueOrganization, ReportSettingsRepository } from './report-settings.repository.js';
import type { UptimeReportsService } from './uptime-reports.service.js';

/** Organizations per round, so a round ends; the next one starts at once. */
const ORGANIZATIONS_PER_ROUND = 50;
/** After a failed mail, this process tries that organization again this much later. */
const RETRY_AFTER_MS = 15 * 60_000;

export interface MonthlyReportsDeps {
  settings: ReportSettingsRepository;
  reports: Pick<UptimeReportsService, 'reportFor'>;
  /** Undefined when SMTP is not configured: reports are then skipped, and logged. */
  mailer: SmtpTransport | undefined;
  clock: Clock;
  logger: Logger;
}

export function monthlyReports({ settings, reports, mailer, clock, logger }: MonthlyReportsDeps): DueWork {
  const retryAt = new Map<string, number>();
  let roundFilled = false;

  async function send(due: DueOrganization, month: ReportRange): Promise<boolean> {
    const report = await reports.reportFor(due.organizationId, month);
    const claim = await settings.claim(due.organizationId, month.from);
    if (!claim) return false; // another replica sent it
    if (!mailer) {
      logger.warn({ organizationId: due.organizationId }, 'monthly uptime report not sent: e-mail is not configured (SMTP_HOST)');
      return false;
    }
    try {
      await mailer.send({ ...reportMail(due.name, report), to: claim.recipients });
      return true;
    } catch (err) {
      await settings.release(due.organizationId, month.from, claim.previous);
      retryAt.set(due.organizationId, clock.now().getTime() + RETRY_AFTER_MS);
      logger.error({ err, organizationId: due.organizationId }, 'could not send the monthly uptime report; trying again later');
      return false;
    }
  }

  return {
    async run() {
      const now = clock.now().getTime();
      for (const [id, at] of retryAt) if (at <= now) retryAt.delete(id);
      const month = previousMonth(clock.now());
      const passed = [...retryAt.keys()];
      let sent = 0;
      roundFilled = false;
      for (let i = 0; i < ORGANIZATIONS_PER_ROUND; i++) {
        const due = await settings.nextDue(month.from, passed);
        if (!due) return sent;
        passed.push(due.organizationId);
        if (await send(due, month)) sent++;
      }
      roundFilled = true;
      return sent;
    },

    async nextDue() {
      if (roundFilled) return clock.now();
      return new Date(Math.min(startOfNextMonth(clock.now()).getTime(), ...retryAt.values()));
    },
  };
}
