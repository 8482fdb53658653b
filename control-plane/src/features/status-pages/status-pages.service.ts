// Status pages: organization-scoped CRUD, and the public view of a page (no credentials):
// its services with their current status and 90 daily uptime bars, an overall status, and
// the open incidents. The public view shows names and statuses only, never endpoints; a service
// whose dependency is RED is shown affected, naming the dependency only if the page lists it
// (the page's owner chose what the public sees; internal names stay internal).
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { notFound } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { ServiceStatus } from '../../../../shared/src/status.js';
import type { CheckHistoryRepository, DailyCounts } from '../checks/check-history.repository.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { References } from '../organizations/references.js';
import type { CreateStatusPageInput, UpdateStatusPageInput } from './status-pages.schema.js';
import type { StatusPage, StatusPagesRepository } from './status-pages.repository.js';

export const UPTIME_BAR_DAYS = 90;
const DAY_MS = 86_400_000;
const SEVERITY: Record<ServiceStatus, number> = { GREEN: 0, YELLOW: 1, RED: 2 };
const OVERALL_MESSAGE: Record<ServiceStatus | 'PENDING', string> = {
  GREEN: 'All systems operational',
  YELLOW: 'Some systems are degraded',
  RED: 'Some systems are down',
  PENDING: 'Waiting for the first checks',
};

/** The page's status in words; a service affected by a RED dependency is no longer "operational". */
function overallMessage(status: ServiceStatus | null, affected: number): string {
  if (affected > 0 && status !== 'RED') return affected === 1 ? 'A system is affected by an outage of a service it depends on' : 'Some systems are affected by an outage of services they depend on';
  return OVERALL_MESSAGE[status ?? 'PENDING'];
}

const percentage = (successful: number, total: number) => (total === 0 ? null : Math.round((successful / total) * 100_000) / 1000);

export interface StatusPagesDeps {
  pages: StatusPagesRepository;
  history: CheckHistoryRepository;
  access: OrganizationAccess;
  references: References;
  clock: Clock;
}

export function createStatusPagesService({ pages, history, access, references, clock }: StatusPagesDeps) {
  const checkServices = async (organizationId: string, ids: string[] | undefined) => {
    if (ids?.length && !(await references.servicesExist(organizationId, ids))) throw notFound('service');
  };
  const findIn = async (organizationId: string, id: string) => {
    const found = await pages.find(organizationId, id);
    if (!found) throw notFound('status page');
    return found;
  };

  /** One bar per UTC day, oldest first, today last. */
  function bars(serviceId: string, counts: DailyCounts[], firstDay: number) {
    const byDay = new Map(counts.filter((c) => c.serviceId === serviceId).map((c) => [c.day.getTime(), c]));
    return Array.from({ length: UPTIME_BAR_DAYS }, (_, i) => {
      const day = firstDay + i * DAY_MS;
      const c = byDay.get(day);
      return {
        date: new Date(day).toISOString().slice(0, 10),
        total_checks: c?.total ?? 0,
        successful_checks: c?.successful ?? 0,
        uptime_percentage: c ? percentage(c.successful, c.total) : null,
      };
    });
  }

  return {
    async list(actor: Actor): Promise<StatusPage[]> {
      return pages.list(await access.resolveReadable(actor));
    },
    async get(actor: Actor, id: string): Promise<StatusPage> {
      return findIn(await access.resolveReadable(actor), id);
    },
    async create(actor: Actor, input: CreateStatusPageInput): Promise<StatusPage> {
      const organizationId = await access.resolveWritable(actor);
      await checkServices(organizationId, input.service_ids);
      return pages.insert({
        id: randomUUID(),
        organizationId,
        slug: input.slug,
        title: input.title,
        description: input.description ?? null,
        public: input.public,
        serviceIds: input.service_ids,
      });
    },
    async update(actor: Actor, id: string, input: UpdateStatusPageInput): Promise<StatusPage> {
      const organizationId = await access.resolveWritable(actor);
      const current = await findIn(organizationId, id);
      await checkServices(organizationId, input.service_ids);
      return pages.update(id, {
        slug: input.slug ?? current.slug,
        title: input.title ?? current.title,
        description: input.description === undefined ? current.description : input.description,
        public: input.public ?? current.public,
        serviceIds: input.service_ids ?? current.serviceIds,
      });
    },
    async remove(actor: Actor, id: string): Promise<void> {
      const organizationId = await access.resolveWritable(actor);
      await findIn(organizationId, id);
      await pages.delete(id);
    },

    /** The public view; a private or unknown page is not found, alike. */
    async publicView(slug: string) {
      const page = await pages.findBySlug(slug);
      if (!page || !page.public) throw notFound('status page');
      const now = clock.now();
      const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
      const firstDay = today - (UPTIME_BAR_DAYS - 1) * DAY_MS;
      const services = await pages.services(page.id);
      const ids = services.map((s) => s.id);
      const [counts, incidents] = await Promise.all([history.daily(ids, new Date(firstDay), now), pages.openIncidents(ids)]);
      const known = services.map((s) => s.status).filter((s): s is ServiceStatus => s !== null);
      const overall = known.length === 0 ? null : known.reduce((worst, s) => (SEVERITY[s] > SEVERITY[worst] ? s : worst));
      return {
        slug: page.slug,
        title: page.title,
        description: page.description,
        overall_status: overall,
        overall_message: overallMessage(overall, services.filter((s) => s.affectedBy.length > 0).length),
        generated_at: now.toISOString(),
        services: services.map((s) => {
          const listed = new Set(services.map((p) => p.id));
          const uptimeBars = bars(s.id, counts, firstDay);
          const total = uptimeBars.reduce((n, b) => n + b.total_checks, 0);
          const successful = uptimeBars.reduce((n, b) => n + b.successful_checks, 0);
          return {
            id: s.id,
            name: s.name,
            status: s.status,
            last_checked_at: s.lastCheckedAt?.toISOString() ?? null,
            uptime_percentage: percentage(successful, total),
            uptime_bars: uptimeBars,
            affected: s.affectedBy.length > 0,
            affected_by: s.affectedBy.filter((p) => listed.has(p.id)),
          };
        }),
        incidents: incidents.map((i) => ({
          id: i.id,
          service_id: i.serviceId,
          service_name: i.serviceName,
          title: i.title,
          severity: i.severity,
          status: i.status,
          started_at: i.firedAt.toISOString(),
          acknowledged_at: i.acknowledgedAt?.toISOString() ?? null,
        })),
      };
    },
  };
}

export type StatusPagesService = ReturnType<typeof createStatusPagesService>;
