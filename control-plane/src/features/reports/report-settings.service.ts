// Whether an organization gets the monthly uptime report by e-mail, and who gets it. Anyone
// of the organization reads the settings; admins and owners change them.
import type { Clock } from '../../clock.js';
import { AppError, validationFailed } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import { ROLE_RANK, type OrganizationAccess } from '../organizations/organization-access.js';
import { previousMonth } from './report-range.js';
import type { UpdateReportSettingsInput } from './reports.schema.js';
import type { ReportSettings, ReportSettingsRepository } from './report-settings.repository.js';

export interface ReportSettingsDeps {
  settings: ReportSettingsRepository;
  access: OrganizationAccess;
  clock: Clock;
  /** Why e-mail cannot be sent (SMTP not configured); undefined when it can. */
  emailUnavailable: string | undefined;
}

export function createReportSettingsService({ settings, access, clock, emailUnavailable }: ReportSettingsDeps) {
  return {
    async get(actor: Actor): Promise<ReportSettings> {
      return settings.get(await access.resolveReadable(actor));
    },

    async update(actor: Actor, input: UpdateReportSettingsInput): Promise<ReportSettings> {
      const organizationId = actor.organizationId;
      const role = await access.roleIn(actor, organizationId);
      if (ROLE_RANK[role] < ROLE_RANK.admin) throw new AppError('FORBIDDEN', `the ${role} role cannot change report settings`);
      const current = await settings.get(organizationId);
      const next = { enabled: input.monthly_email.enabled ?? current.enabled, recipients: input.monthly_email.recipients ?? current.recipients };
      if (next.enabled && next.recipients.length === 0) {
        throw validationFailed('the monthly report needs at least one recipient', [{ path: 'monthly_email.recipients', message: 'must name at least one e-mail address' }]);
      }
      if (next.enabled && emailUnavailable) throw validationFailed(emailUnavailable, [{ path: 'monthly_email.enabled', message: 'e-mail is not configured' }]);
      // Turned on now: the first report is of this month, sent when it ends, not last month's at once.
      const turnedOn = next.enabled && !current.enabled;
      await settings.save(organizationId, next, turnedOn ? previousMonth(clock.now()).from : null);
      return next;
    },
  };
}

export type ReportSettingsService = ReturnType<typeof createReportSettingsService>;
