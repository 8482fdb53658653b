// Status pages and what their public view shows: the listed services and their open alerts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUniqueViolation } from '../../db/pg-errors.js';
import type { Tx } from '../../db/tx.js';
import { AppError } from '../../errors.js';
import type { ServiceStatus } from '../../../../shared/src/status.js';

export interface StatusPage {
  id: string;
  organizationId: string;
  slug: string;
  title: string;
  description: string | null;
  public: boolean;
  serviceIds: string[];
  createdAt: Date;
  updatedAt: Date;
}

export type StatusPageFields = Pick<StatusPage, 'slug' | 'title' | 'description' | 'public' | 'serviceIds'>;

export interface PageService {
  id: string;
  name: string;
  status: ServiceStatus | null;
  lastCheckedAt: Date | null;
  /** Its dependencies that are RED now, whether the page shows them or not. */
  affectedBy: { id: string; name: string }[];
}

export interface Incident {
  id: string;
  serviceId: string;
  serviceName: string;
  title: string;
  severity: string;
  status: string;
  firedAt: Date;
  acknowledgedAt: Date | null;
}

export interface StatusPagesRepository {
  insert(page: { id: string; organizationId: string } & StatusPageFields): Promise<StatusPage>;
  find(organizationId: string, id: string): Promise<StatusPage | null>;
  findBySlug(slug: string): Promise<StatusPage | null>;
  list(organizationId: string): Promise<StatusPage[]>;
  update(id: string, fields: StatusPageFields): Promise<StatusPage>;
  delete(id: string): Promise<void>;
  /** The page's services in page order. */
  services(pageId: string): Promise<PageService[]>;
  /** Alerts of these services that are firing or acknowledged, newest first. */
  openIncidents(serviceIds: string[]): Promise<Incident[]>;
}

const slugTaken = (slug: string) => new AppError('CONFLICT', `the status page slug "${slug}" is taken`);

export function createStatusPagesRepository(em: () => EntityManager, transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>): StatusPagesRepository {
  const run = (sql: string, params: unknown[], tx: EntityManager = em()) => tx.execute<Record<string, unknown>[]>(sql, params);

  const select = (where: string) =>
    `select p.*, coalesce((select json_agg(s.service_id order by s.position) from status_page_services s where s.status_page_id = p.id), '[]') as service_ids
       from status_pages p where ${where}`;

  async function replaceServices(tx: Tx, pageId: string, serviceIds: string[]): Promise<void> {
    await run('delete from status_page_services where status_page_id = ?', [pageId], tx);
    if (serviceIds.length === 0) return;
    await run(
      `insert into status_page_services (status_page_id, service_id, position) values ${serviceIds.map(() => '(?, ?, ?)').join(',')}`,
      serviceIds.flatMap((id, i) => [pageId, id, i]),
      tx,
    );
  }

  async function write<T>(slug: string, work: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await transaction(work);
    } catch (err) {
      if (isUniqueViolation(err, 'status_pages_slug_key')) throw slugTaken(slug);
      throw err;
    }
  }

  const find = async (where: string, params: unknown[]) => {
    const [row] = await run(select(where), params);
    return row ? fromRow(row) : null;
  };

  return {
    async insert(p) {
      await write(p.slug, async (tx) => {
        await run('insert into status_pages (id, organization_id, slug, title, description, public) values (?, ?, ?, ?, ?, ?)', [p.id, p.organizationId, p.slug, p.title, p.description, p.public], tx);
        await replaceServices(tx, p.id, p.serviceIds);
      });
      return (await find('p.id = ?', [p.id]))!;
    },
    find: (organizationId, id) => find('p.id = ? and p.organization_id = ?', [id, organizationId]),
    findBySlug: (slug) => find('p.slug = ?', [slug]),
    async list(organizationId) {
      return (await run(`${select('p.organization_id = ?')} order by p.created_at, p.id`, [organizationId])).map(fromRow);
    },
    async update(id, p) {
      await write(p.slug, async (tx) => {
        await run('update status_pages set slug = ?, title = ?, description = ?, public = ?, updated_at = now() where id = ?', [p.slug, p.title, p.description, p.public, id], tx);
        await replaceServices(tx, id, p.serviceIds);
      });
      return (await find('p.id = ?', [id]))!;
    },
    async delete(id) {
      await run('delete from status_pages where id = ?', [id]);
    },
    async services(pageId) {
      const rows = await run(
        `select s.id, s.name, s.status, s.last_checked_at,
                coalesce((select json_agg(json_build_object('id', p.id, 'name', p.name) order by d.position)
                            from service_dependencies d join services p on p.id = d.depends_on_id
                           where d.service_id = s.id and p.status = 'RED'), '[]') as affected_by
           from status_page_services ps join services s on s.id = ps.service_id
          where ps.status_page_id = ? order by ps.position`,
        [pageId],
      );
      return rows.map((r) => ({
        id: String(r.id),
        name: String(r.name),
        status: (r.status as ServiceStatus | null) ?? null,
        lastCheckedAt: r.last_checked_at ? new Date(r.last_checked_at as string) : null,
        affectedBy: (typeof r.affected_by === 'string' ? JSON.parse(r.affected_by) : r.affected_by) as PageService['affectedBy'],
      }));
    },
    async openIncidents(serviceIds) {
      if (serviceIds.length === 0) return [];
      const rows = await run(
        `select a.id, a.service_id, s.name as service_name, a.title, a.severity, a.status, a.fired_at, a.acknowledged_at
           from alerts a join services s on s.id = a.service_id
          where a.service_id in (${serviceIds.map(() => '?').join(',')}) and a.status in ('firing', 'acknowledged')
          order by a.fired_at desc limit 50`,
        serviceIds,
      );
      return rows.map((r) => ({
        id: String(r.id),
        serviceId: String(r.service_id),
        serviceName: String(r.service_name),
        title: String(r.title),
        severity: String(r.severity),
        status: String(r.status),
        firedAt: new Date(r.fired_at as string),
        acknowledgedAt: r.acknowledged_at ? new Date(r.acknowledged_at as string) : null,
      }));
    },
  };
}

function fromRow(r: Record<string, unknown>): StatusPage {
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    slug: String(r.slug),
    title: String(r.title),
    description: (r.description as string | null) ?? null,
    public: Boolean(r.public),
    serviceIds: (typeof r.service_ids === 'string' ? JSON.parse(r.service_ids) : r.service_ids) as string[],
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}
