// Status pages and what their public view shows: the listed services and their open alerts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUniqueViolation } from '../../db/pg-errors.js';
import type { Tx } from '../../db/tx.js';
import { AppError } from '../../errors.js';
import type { ServiceStatus } from '../../../../shared/src/status.js';
import type { PageAccess } from '../../../../shared/src/status-page-fields.js';
import { jsonColumn } from '../../db/json-column.js';

export interface StatusPage {
  id: string;
  organizationId: string;
  slug: string;
  title: string;
  description: string | null;
  access: PageAccess;
  /** argon2 hash of the password of a page whose access is password. */
  passwordHash: string | null;
  ipAllowlist: string[];
  customDomain: string | null;
  autoIncidents: boolean;
  groups: PageGroup[];
  /** Every service shown, grouped ones included, in page order. */
  serviceIds: string[];
  createdAt: Date;
  updatedAt: Date;
}

export interface PageGroup {
  name: string;
  serviceIds: string[];
}

export type StatusPageFields = Omit<StatusPage, 'id' | 'organizationId' | 'createdAt' | 'updatedAt'>;

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
  findByDomain(domain: string): Promise<StatusPage | null>;
  list(organizationId: string): Promise<StatusPage[]>;
  update(id: string, fields: StatusPageFields): Promise<StatusPage>;
  delete(id: string): Promise<void>;
  /** The page's services in page order. */
  services(pageId: string): Promise<PageService[]>;
  /** Alerts of these services that are firing or acknowledged, newest first. */
  openIncidents(serviceIds: string[]): Promise<Incident[]>;
}

const slugTaken = (slug: string) => new AppError('CONFLICT', `the status page slug "${slug}" is taken`);
const domainTaken = (domain: string | null) => new AppError('CONFLICT', `the custom domain "${domain}" belongs to another status page`);

const COLUMNS = ['slug', 'title', 'description', 'access', 'password_hash', 'ip_allowlist', 'custom_domain', 'auto_incidents', 'groups'];
const values = (p: StatusPageFields) => [
  p.slug, p.title, p.description, p.access, p.passwordHash, JSON.stringify(p.ipAllowlist), p.customDomain, p.autoIncidents,
  JSON.stringify(p.groups.map((g) => ({ name: g.name, service_ids: g.serviceIds }))),
];

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

  async function write<T>(p: StatusPageFields, work: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await transaction(work);
    } catch (err) {
      if (isUniqueViolation(err, 'status_pages_slug_key')) throw slugTaken(p.slug);
      if (isUniqueViolation(err, 'status_pages_custom_domain_key')) throw domainTaken(p.customDomain);
      throw err;
    }
  }

  const find = async (where: string, params: unknown[]) => {
    const [row] = await run(select(where), params);
    return row ? fromRow(row) : null;
  };

  return {
    async insert(p) {
      await write(p, async (tx) => {
        await run(`insert into status_pages (id, organization_id, ${COLUMNS.join(', ')}) values (?, ?, ${COLUMNS.map(() => '?').join(', ')})`, [p.id, p.organizationId, ...values(p)], tx);
        await replaceServices(tx, p.id, p.serviceIds);
      });
      return (await find('p.id = ?', [p.id]))!;
    },
    find: (organizationId, id) => find('p.id = ? and p.organization_id = ?', [id, organizationId]),
    findBySlug: (slug) => find('p.slug = ?', [slug]),
    findByDomain: (domain) => find('p.custom_domain = ?', [domain]),
    async list(organizationId) {
      return (await run(`${select('p.organization_id = ?')} order by p.created_at, p.id`, [organizationId])).map(fromRow);
    },
    async update(id, p) {
      await write(p, async (tx) => {
        await run(`update status_pages set ${COLUMNS.map((c) => `${c} = ?`).join(', ')}, updated_at = now() where id = ?`, [...values(p), id], tx);
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
        affectedBy: jsonColumn<PageService['affectedBy']>(r.affected_by),
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
  const serviceIds = jsonColumn<string[]>(r.service_ids);
  // A deleted service leaves the page (status_page_services cascades) and so its group.
  const listed = new Set(serviceIds);
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    slug: String(r.slug),
    title: String(r.title),
    description: (r.description as string | null) ?? null,
    access: r.access as PageAccess,
    passwordHash: (r.password_hash as string | null) ?? null,
    ipAllowlist: jsonColumn<string[]>(r.ip_allowlist),
    customDomain: (r.custom_domain as string | null) ?? null,
    autoIncidents: Boolean(r.auto_incidents),
    groups: jsonColumn<{ name: string; service_ids: string[] }[]>(r.groups).map((g) => ({ name: g.name, serviceIds: g.service_ids.filter((id) => listed.has(id)) })),
    serviceIds,
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}

