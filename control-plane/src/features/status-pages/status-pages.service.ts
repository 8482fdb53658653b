// Status pages: organization-scoped CRUD, and the public view of a page: its services with
// their current status and 90 daily uptime bars, grouped into components, an overall status,
// the incidents people wrote (with their timelines) and, unless the page says otherwise, the
// open alerts of its services; maintenance it announces, upcoming or in progress (its services
// shown under maintenance, not down); and a history of both. The public view shows names and
// statuses only, never endpoints; a service whose dependency is RED is shown affected, naming
// the dependency only if the page lists it (the page's owner chose what the public sees).
// Who may see a page at all is page-access.ts's answer.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { notFound, validationFailed } from '../../errors.js';
import type { RateLimiter } from '../../limits/rate-limiter.js';
import type { Actor } from '../auth/actor.js';
import type { PasswordHasher } from '../auth/password-hasher.js';
import type { ServiceStatus } from '../../../../shared/src/status.js';
import type { CheckHistoryRepository, DailyCounts } from '../checks/check-history.repository.js';
import type { Incident } from '../incidents/incident.js';
import type { IncidentsRepository } from '../incidents/incidents.repository.js';
import type { EndedOccurrence } from '../maintenance/maintenance-announcements.repository.js';
import { shownOccurrences } from '../maintenance/maintenance-announcements.js';
import type { MaintenanceRepository, MaintenanceWindow } from '../maintenance/maintenance.repository.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { References } from '../organizations/references.js';
import { unlockCookieName, type PageAccessCheck } from './page-access.js';
import type { PageAccess } from '../../../../shared/src/status-page-fields.js';
import type { CreateStatusPageInput, UpdateStatusPageInput } from './status-pages.schema.js';
import type { PageGroup, StatusPage, StatusPageFields, StatusPagesRepository } from './status-pages.repository.js';
import type { Visitor } from './visitor.js';

export const UPTIME_BAR_DAYS = 90;
export const HISTORY_DAYS = 90;
const DAY_MS = 86_400_000;
const SEVERITY: Record<ServiceStatus, number> = { GREEN: 0, YELLOW: 1, RED: 2 };
const OVERALL_MESSAGE: Record<ServiceStatus | 'PENDING', string> = {
  GREEN: 'All systems operational',
  YELLOW: 'Some systems are degraded',
  RED: 'Some systems are down',
  PENDING: 'Waiting for the first checks',
};

/** The page's status in words; a service affected by a RED dependency is no longer "operational". */
function overallMessage(status: ServiceStatus | null, affected: number, underMaintenance: number): string {
  if (affected > 0 && status !== 'RED') return affected === 1 ? 'A system is affected by an outage of a service it depends on' : 'Some systems are affected by an outage of services they depend on';
  if (underMaintenance > 0 && (status === null || status === 'GREEN')) return 'Maintenance is in progress';
  return OVERALL_MESSAGE[status ?? 'PENDING'];
}

const NO_SERVICES = 'No services are listed on this page yet';

const worst = (statuses: (ServiceStatus | null)[]): ServiceStatus | null => {
  const known = statuses.filter((s): s is ServiceStatus => s !== null);
  return known.length === 0 ? null : known.reduce((w, s) => (SEVERITY[s] > SEVERITY[w] ? s : w));
};

const percentage = (successful: number, total: number) => (total === 0 ? null : Math.round((successful / total) * 100_000) / 1000);

/**
 * The access a request leaves. `public` is the older shorthand (false: members, or the page's
 * other non-public access); a client echoing a page back sends both, so the one it changed wins.
 */
function accessAfter(input: { access?: PageAccess; public?: boolean }, current: Pick<StatusPageFields, 'access'> | undefined): PageAccess {
  const fromPublic: PageAccess | undefined = input.public === undefined ? undefined : input.public ? 'public' : current && current.access !== 'public' ? current.access : 'members';
  if (input.access !== undefined && input.access !== current?.access) return input.access;
  return fromPublic ?? input.access ?? current?.access ?? 'public';
}

export interface StatusPagesDeps {
  pages: StatusPagesRepository;
  history: CheckHistoryRepository;
  incidents: IncidentsRepository;
  maintenance: MaintenanceRepository;
  endedMaintenance: (windowIds: string[], since: Date, before: Date, limit: number) => Promise<EndedOccurrence[]>;
  access: OrganizationAccess;
  pageAccess: PageAccessCheck;
  hasher: PasswordHasher;
  /** Wrong passwords per client address and page. */
  unlockLimiter: RateLimiter | undefined;
  references: References;
  clock: Clock;
}

export function createStatusPagesService(deps: StatusPagesDeps) {
  const { pages, history, incidents, maintenance, access, pageAccess, hasher, unlockLimiter, references, clock } = deps;
  const checkServices = async (organizationId: string, ids: string[]) => {
    if (ids.length && !(await references.servicesExist(organizationId, ids))) throw notFound('service');
  };
  const findIn = async (organizationId: string, id: string) => {
    const found = await pages.find(organizationId, id);
    if (!found) throw notFound('status page');
    return found;
  };

  /** The page's fields after a create or update: grouped services are listed, a password page has a password. */
  async function settle(organizationId: string, input: CreateStatusPageInput | UpdateStatusPageInput, current: StatusPageFields | undefined): Promise<StatusPageFields> {
    const groups: PageGroup[] = input.groups?.map((g) => ({ name: g.name, serviceIds: g.service_ids })) ?? current?.groups ?? [];
    const listed = input.service_ids ?? current?.serviceIds ?? [];
    const serviceIds = [...new Set([...listed, ...groups.flatMap((g) => g.serviceIds)])];
    await checkServices(organizationId, serviceIds);
    const access = accessAfter(input, current);
    const passwordHash = input.password ? await hasher.hash(input.password) : (current?.passwordHash ?? null);
    if (access === 'password' && !passwordHash) throw validationFailed('invalid request body: password: a page whose access is password needs a password', [{ path: 'password', message: 'required when access is password' }]);
    const ipAllowlist = input.ip_allowlist ?? current?.ipAllowlist ?? [];
    if (access === 'ip_allowlist' && ipAllowlist.length === 0) throw validationFailed('invalid request body: ip_allowlist: a page whose access is ip_allowlist needs at least one range', [{ path: 'ip_allowlist', message: 'required when access is ip_allowlist' }]);
    return {
      slug: input.slug ?? current!.slug,
      title: input.title ?? current!.title,
      description: input.description === undefined ? (current?.description ?? null) : input.description,
      access,
      passwordHash,
      ipAllowlist,
      customDomain: input.custom_domain === undefined ? (current?.customDomain ?? null) : input.custom_domain,
      autoIncidents: input.auto_incidents ?? current?.autoIncidents ?? true,
      groups,
      serviceIds,
    };
  }

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

  /** A written incident as the public sees it: only services the page lists are named. */
  const publicIncident = (i: Incident, listed: Set<string>) => ({
    id: i.id,
    source: 'written' as const,
    title: i.title,
    status: i.status,
    impact: i.impact,
    started_at: i.startsAt.toISOString(),
    resolved_at: i.resolvedAt?.toISOString() ?? null,
    affected: i.affected.filter((a) => listed.has(a.serviceId)).map((a) => ({ service_id: a.serviceId, service_name: a.serviceName, impact: a.impact })),
    updates: i.updates.map((u) => ({ id: u.id, status: u.status, message: u.message, created_at: u.createdAt.toISOString() })),
  });

  /** The page's services a window covers (all of them when it covers the whole organization). */
  const coveredOn = (w: MaintenanceWindow, page: StatusPage) => (w.serviceIds.length === 0 ? page.serviceIds : w.serviceIds.filter((id) => page.serviceIds.includes(id)));

  const publicMaintenance = (w: MaintenanceWindow, page: StatusPage, startsAt: Date, endsAt: Date, status: 'upcoming' | 'in_progress' | 'completed') => ({
    id: w.id,
    name: w.name,
    status,
    starts_at: startsAt.toISOString(),
    ends_at: endsAt.toISOString(),
    service_ids: coveredOn(w, page),
  });

  const service = {
    async list(actor: Actor): Promise<StatusPage[]> {
      return pages.list(await access.resolveReadable(actor));
    },
    async get(actor: Actor, id: string): Promise<StatusPage> {
      return findIn(await access.resolveReadable(actor), id);
    },
    async create(actor: Actor, input: CreateStatusPageInput): Promise<StatusPage> {
      const organizationId = await access.resolveWritable(actor);
      return pages.insert({ id: randomUUID(), organizationId, ...(await settle(organizationId, input, undefined)) });
    },
    async update(actor: Actor, id: string, input: UpdateStatusPageInput): Promise<StatusPage> {
      const organizationId = await access.resolveWritable(actor);
      const current = await findIn(organizationId, id);
      return pages.update(id, await settle(organizationId, input, current));
    },
    async remove(actor: Actor, id: string): Promise<void> {
      const organizationId = await access.resolveWritable(actor);
      await findIn(organizationId, id);
      await pages.delete(id);
    },

    /** The page by slug if this visitor may see it; otherwise not found (or, for a password page, PASSWORD_REQUIRED). */
    async visiblePage(slug: string, visitor: Visitor): Promise<StatusPage> {
      const page = await pages.findBySlug(slug.toLowerCase());
      if (!page) throw notFound('status page');
      await pageAccess.admit(page, visitor);
      return page;
    },
    /** The page answering on a custom domain, whoever asks (its access is checked where it is shown). */
    pageForDomain: (host: string) => pages.findByDomain(host.toLowerCase().replace(/\.$/, '')),

    /** Checks a password page's password; answers the cookie that opens it. Wrong guesses are limited per address. */
    async unlock(slug: string, password: string, visitor: Visitor): Promise<{ name: string; value: string; maxAgeSeconds: number }> {
      const page = await pages.findBySlug(slug.toLowerCase());
      if (!page || page.access !== 'password' || !page.passwordHash) throw notFound('status page');
      const key = `${visitor.ip}/${page.id}`;
      const message = 'too many wrong passwords for this status page; try again later';
      await unlockLimiter?.assertAvailable(key, message);
      if (!(await hasher.verify(page.passwordHash, password))) {
        await unlockLimiter?.consume(key, message);
        throw validationFailed('wrong password', [{ path: 'password', message: 'wrong password' }]);
      }
      return { name: unlockCookieName(page), ...pageAccess.unlockCookie(page) };
    },

    /** The public view of a page the visitor may see. */
    async publicView(slug: string, visitor: Visitor) {
      const page = await service.visiblePage(slug, visitor);
      return { page, body: await viewOf(page) };
    },

    /**
     * Past incidents (resolved) and maintenance (ended) of the last 90 days, newest first, `limit`
     * at a time; `next_before` pages on (null at the end).
     */
    async publicHistory(slug: string, visitor: Visitor, query: { before?: Date; limit: number }) {
      const page = await service.visiblePage(slug, visitor);
      return { page, body: await pastEvents(page, query) };
    },

    /** The same history, for feeds: incidents open or past, and maintenance announced, in progress or ended. */
    async feedEntries(page: StatusPage, limit: number) {
      const now = clock.now();
      const since = new Date(now.getTime() - HISTORY_DAYS * DAY_MS);
      const [recent, windows] = await Promise.all([incidents.list({ statusPageId: page.id, status: 'all', limit, since }), maintenance.forPage(page.id)]);
      const listed = new Set(page.serviceIds);
      const ahead = windows.flatMap((w) => shownOccurrences(w, now).map((s) => publicMaintenance(w, page, s.occurrence.startsAt, s.occurrence.endsAt, s.phase)));
      const past = await completedMaintenance(page, windows, since, now, limit);
      return { incidents: recent.map((i) => ({ ...publicIncident(i, listed), updated_at: i.updatedAt.toISOString() })), maintenance: [...ahead, ...past] };
    },
  };

  async function viewOf(page: StatusPage) {
    const now = clock.now();
    const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
    const firstDay = today - (UPTIME_BAR_DAYS - 1) * DAY_MS;
    const services = await pages.services(page.id);
    const ids = services.map((s) => s.id);
    const listed = new Set(ids);
    const [counts, alerts, written, windows, fromAlerts] = await Promise.all([
      history.daily(ids, new Date(firstDay), now),
      page.autoIncidents ? pages.openIncidents(ids) : Promise.resolve([]),
      incidents.openFor([page.id]),
      maintenance.forPage(page.id),
      incidents.writtenAlertIds(page.id),
    ]);
    const shown = windows.flatMap((w) => shownOccurrences(w, now).map((s) => publicMaintenance(w, page, s.occurrence.startsAt, s.occurrence.endsAt, s.phase)));
    const underMaintenance = new Set(shown.filter((m) => m.status === 'in_progress').flatMap((m) => m.service_ids));
    const writtenFor = new Set(written.flatMap((i) => i.affected.map((a) => a.serviceId)));
    const statusOf = new Map(services.map((s) => [s.id, s.status]));
    // A service under maintenance is not down: it does not make the page red.
    const counted = services.filter((s) => !underMaintenance.has(s.id)).map((s) => s.status);
    const overall = worst(counted);
    const groupOf = new Map(page.groups.flatMap((g) => g.serviceIds.map((id) => [id, g.name] as const)));
    return {
      slug: page.slug,
      title: page.title,
      description: page.description,
      overall_status: overall,
      overall_message: services.length === 0 ? NO_SERVICES : overallMessage(overall, services.filter((s) => s.affectedBy.length > 0).length, underMaintenance.size),
      generated_at: now.toISOString(),
      services: services.map((s) => {
        const uptimeBars = bars(s.id, counts, firstDay);
        const total = uptimeBars.reduce((n, b) => n + b.total_checks, 0);
        const successful = uptimeBars.reduce((n, b) => n + b.successful_checks, 0);
        return {
          id: s.id,
          name: s.name,
          status: s.status,
          under_maintenance: underMaintenance.has(s.id),
          group: groupOf.get(s.id) ?? null,
          last_checked_at: s.lastCheckedAt?.toISOString() ?? null,
          uptime_percentage: percentage(successful, total),
          uptime_bars: uptimeBars,
          affected: s.affectedBy.length > 0,
          affected_by: s.affectedBy.filter((p) => listed.has(p.id)),
        };
      }),
      groups: page.groups.map((g) => ({
        name: g.name,
        status: worst(g.serviceIds.filter((id) => !underMaintenance.has(id)).map((id) => statusOf.get(id) ?? null)),
        under_maintenance: g.serviceIds.length > 0 && g.serviceIds.every((id) => underMaintenance.has(id)),
        service_ids: g.serviceIds,
      })),
      incidents: [
        ...written.map((i) => publicIncident(i, listed)),
        ...alerts
          // The team's own words speak for a service (a written incident naming it), and a service
          // under announced maintenance is not down: their alerts are not shown beside them.
          .filter((a) => !fromAlerts.has(a.id) && !writtenFor.has(a.serviceId) && !underMaintenance.has(a.serviceId))
          .map((a) => ({
            id: a.id,
            source: 'alert' as const,
            service_id: a.serviceId,
            service_name: a.serviceName,
            title: a.title,
            severity: a.severity,
            status: a.status,
            started_at: a.firedAt.toISOString(),
            acknowledged_at: a.acknowledgedAt?.toISOString() ?? null,
          })),
      ],
      maintenance: shown,
      links: {
        history: `/api/v1/status-pages/${page.slug}/public/history`,
        subscribe: `/api/v1/status-pages/${page.slug}/subscribe`,
        rss: `/status/${page.slug}/feed.rss`,
        atom: `/status/${page.slug}/feed.atom`,
      },
    };
  }

  /** Maintenance of these windows that ended in [since, until), as the history shows it. */
  async function completedMaintenance(page: StatusPage, windows: MaintenanceWindow[], since: Date, until: Date, limit: number) {
    const now = clock.now();
    const ended = await deps.endedMaintenance(windows.filter((w) => w.schedule !== null).map((w) => w.id), since, until, limit);
    const byId = new Map(windows.map((w) => [w.id, w]));
    return [
      // One-off windows are their own record; recurring ones left one per occurrence told as ended.
      ...windows.filter((w) => w.startsAt && w.endsAt && w.endsAt <= now && w.startsAt >= since && w.startsAt < until).map((w) => publicMaintenance(w, page, w.startsAt!, w.endsAt!, 'completed')),
      ...ended.map((o) => {
        const w = byId.get(o.windowId)!;
        return publicMaintenance(w, page, o.startsAt, new Date(o.startsAt.getTime() + (w.durationMinutes ?? 0) * 60_000), 'completed');
      }),
    ];
  }

  async function pastEvents(page: StatusPage, { before, limit }: { before?: Date; limit: number }) {
    const now = clock.now();
    const until = before && before < now ? before : now;
    const since = new Date(now.getTime() - HISTORY_DAYS * DAY_MS);
    const listed = new Set(page.serviceIds);
    const [resolved, completed] = await Promise.all([
      incidents.list({ statusPageId: page.id, status: 'resolved', limit, before: until, since }),
      maintenance.forPage(page.id).then((windows) => completedMaintenance(page, windows, since, until, limit)),
    ]);
    const items = [
      ...resolved.map((i) => ({ type: 'incident' as const, ...publicIncident(i, listed) })),
      ...completed.map((m) => ({ type: 'maintenance' as const, ...m, started_at: m.starts_at })),
    ]
      .sort((a, b) => Date.parse(b.started_at) - Date.parse(a.started_at))
      .slice(0, limit);
    const full = items.length === limit;
    return { items, next_before: full ? items[items.length - 1]!.started_at : null };
  }

  return service;
}

export type StatusPagesService = ReturnType<typeof createStatusPagesService>;
