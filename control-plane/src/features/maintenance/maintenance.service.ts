// Maintenance windows: while one covers a service, checks run and statuses change, but no
// alert opens and nothing is notified. A window is one-off or recurring (maintenance-schedule.ts).
import { randomUUID } from 'node:crypto';
import { notFound, validationFailed } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { References } from '../organizations/references.js';
import type { WindowTiming } from './maintenance-schedule.js';
import type { CreateWindowInput, UpdateWindowInput } from './maintenance.schema.js';
import type { MaintenanceRepository, MaintenanceWindow } from './maintenance.repository.js';

const invalid = (field: string, message: string) => validationFailed(`invalid request body: ${field}: ${message}`, [{ path: field, message }]);

/** A field the resulting form needs: the one sent, else the stored one; null is refused. */
function needed<T>(field: string, sent: T | null | undefined, kept: T | null, form: string): T {
  const value = sent === undefined ? kept : sent;
  if (value === null) throw invalid(field, `${field} is required for a ${form} window`);
  return value;
}

const instant = (sent: string | null | undefined) => (sent == null ? sent : new Date(sent));

/** The timing of a new window (the schema has checked that one form is complete). */
function timingOf(input: CreateWindowInput): WindowTiming {
  if (input.schedule != null) return { startsAt: null, endsAt: null, schedule: input.schedule, timezone: input.timezone ?? 'UTC', durationMinutes: input.duration_minutes! };
  return { startsAt: new Date(input.starts_at!), endsAt: new Date(input.ends_at!), schedule: null, timezone: null, durationMinutes: null };
}

/**
 * The timing an update leaves. A field of the other form switches to it, completed from the
 * stored window where it has that form (else the missing field is named); a field of the same
 * form changes just that field.
 */
export function timingAfterUpdate(current: WindowTiming, input: UpdateWindowInput): WindowTiming {
  const sentOnce = input.starts_at != null || input.ends_at != null;
  const sentRecurring = input.schedule != null || input.duration_minutes != null || input.timezone != null;
  const recurring = sentRecurring || (!sentOnce && current.schedule !== null);
  if (recurring) {
    return {
      startsAt: null,
      endsAt: null,
      schedule: needed('schedule', input.schedule, current.schedule, 'recurring'),
      timezone: input.timezone ?? current.timezone ?? 'UTC',
      durationMinutes: needed('duration_minutes', input.duration_minutes, current.durationMinutes, 'recurring'),
    };
  }
  const startsAt = needed('starts_at', instant(input.starts_at), current.startsAt, 'one-off');
  const endsAt = needed('ends_at', instant(input.ends_at), current.endsAt, 'one-off');
  if (endsAt <= startsAt) throw invalid('ends_at', 'ends_at must be after starts_at');
  return { startsAt, endsAt, schedule: null, timezone: null, durationMinutes: null };
}

/** `announcementsChanged`: a window's timing or pages changed; the announcement job looks again. */
export function createMaintenanceService(windows: MaintenanceRepository, access: OrganizationAccess, references: References, announcementsChanged: () => void) {
  const checkServices = async (organizationId: string, ids: string[] | undefined) => {
    if (ids?.length && !(await references.servicesExist(organizationId, ids))) throw notFound('service');
  };
  const checkPages = async (organizationId: string, ids: string[] | undefined) => {
    if (ids?.length && !(await references.statusPagesExist(organizationId, ids))) throw notFound('status page');
  };
  const findIn = async (organizationId: string, id: string) => {
    const found = await windows.find(organizationId, id);
    if (!found) throw notFound('maintenance window');
    return found;
  };

  return {
    async list(actor: Actor): Promise<MaintenanceWindow[]> {
      return windows.list(await access.resolveReadable(actor));
    },
    async get(actor: Actor, id: string): Promise<MaintenanceWindow> {
      return findIn(await access.resolveReadable(actor), id);
    },
    async create(actor: Actor, input: CreateWindowInput): Promise<MaintenanceWindow> {
      const organizationId = await access.resolveWritable(actor);
      await checkServices(organizationId, input.service_ids);
      await checkPages(organizationId, input.status_page_ids);
      const created = await windows.insert({
        id: randomUUID(), organizationId, name: input.name, serviceIds: input.service_ids, statusPageIds: input.status_page_ids, announceHoursBefore: input.announce_hours_before, ...timingOf(input),
      });
      announcementsChanged();
      return created;
    },
    async update(actor: Actor, id: string, input: UpdateWindowInput): Promise<MaintenanceWindow> {
      const organizationId = await access.resolveWritable(actor);
      const current = await findIn(organizationId, id);
      await checkServices(organizationId, input.service_ids);
      await checkPages(organizationId, input.status_page_ids);
      const timing = timingAfterUpdate(current, input);
      const updated = await windows.update(id, {
        name: input.name ?? current.name,
        serviceIds: input.service_ids ?? current.serviceIds,
        statusPageIds: input.status_page_ids ?? current.statusPageIds,
        announceHoursBefore: input.announce_hours_before ?? current.announceHoursBefore,
        ...timing,
      });
      announcementsChanged();
      return updated;
    },
    async remove(actor: Actor, id: string): Promise<void> {
      const organizationId = await access.resolveWritable(actor);
      await findIn(organizationId, id);
      await windows.delete(id);
    },
  };
}

export type MaintenanceService = ReturnType<typeof createMaintenanceService>;
