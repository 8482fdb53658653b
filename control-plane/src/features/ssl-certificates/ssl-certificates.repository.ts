// Persistence of certificate watches. Status and last check come from the owned service;
// the certificate facts from its latest result (one row through the (service_id,
// checked_at desc) index), so ingest needs to know nothing about watches.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ServiceStatus } from '../../../../shared/src/status.js';

export interface SslCertificateSettings {
  hostname: string;
  port: number;
  warnDays: number;
  location: string;
  caCertificate: string | null;
}

/** What the latest check saw; null fields when it saw no certificate (e.g. connection refused). */
export interface LatestCheck {
  message: string;
  subject: string | null;
  issuer: string | null;
  validFrom: Date | null;
  validTo: Date | null;
}

export interface SslCertificate extends SslCertificateSettings {
  id: string;
  organizationId: string;
  serviceId: string;
  name: string;
  status: ServiceStatus | null;
  lastCheckedAt: Date | null;
  latest: LatestCheck | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface SslCertificatesRepository {
  list(organizationId: string): Promise<SslCertificate[]>;
  find(organizationId: string, id: string): Promise<SslCertificate | null>;
  /** Stores the watch for an already created service. */
  insert(w: { id: string; organizationId: string; serviceId: string } & SslCertificateSettings): Promise<void>;
  update(id: string, settings: SslCertificateSettings): Promise<void>;
}

const SELECT = `select c.id, c.organization_id, c.service_id, s.name, c.hostname, c.port, c.warn_days, c.location, c.ca_certificate,
    s.status, s.last_checked_at, r.message, r.details, c.created_at, c.updated_at
  from ssl_certificates c join services s on s.id = c.service_id
  left join lateral (select message, details from check_results where service_id = c.service_id order by checked_at desc limit 1) r on true`;

export function createSslCertificatesRepository(em: () => EntityManager): SslCertificatesRepository {
  const run = (sql: string, params: unknown[]) => em().execute<Record<string, unknown>[]>(sql, params);
  return {
    async list(organizationId) {
      return (await run(`${SELECT} where c.organization_id = ? order by c.created_at, c.id`, [organizationId])).map(fromRow);
    },
    async find(organizationId, id) {
      const [row] = await run(`${SELECT} where c.id = ? and c.organization_id = ?`, [id, organizationId]);
      return row ? fromRow(row) : null;
    },
    async insert(w) {
      await run(
        'insert into ssl_certificates (id, organization_id, service_id, hostname, port, warn_days, location, ca_certificate) values (?, ?, ?, ?, ?, ?, ?, ?)',
        [w.id, w.organizationId, w.serviceId, w.hostname, w.port, w.warnDays, w.location, w.caCertificate],
      );
    },
    async update(id, s) {
      await run('update ssl_certificates set hostname = ?, port = ?, warn_days = ?, location = ?, ca_certificate = ?, updated_at = now() where id = ?', [
        s.hostname, s.port, s.warnDays, s.location, s.caCertificate, id,
      ]);
    },
  };
}

function fromRow(r: Record<string, unknown>): SslCertificate {
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    serviceId: String(r.service_id),
    name: String(r.name),
    hostname: String(r.hostname),
    port: Number(r.port),
    warnDays: Number(r.warn_days),
    location: String(r.location),
    caCertificate: (r.ca_certificate as string | null) ?? null,
    status: (r.status as ServiceStatus | null) ?? null,
    lastCheckedAt: r.last_checked_at ? new Date(r.last_checked_at as string) : null,
    latest: r.message === null || r.message === undefined ? null : latestCheck(String(r.message), r.details),
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}

/** Details come from agents: only well-formed facts are believed. */
function latestCheck(message: string, raw: unknown): LatestCheck {
  const details = typeof raw === 'string' ? (JSON.parse(raw) as Record<string, unknown>) : ((raw ?? {}) as Record<string, unknown>);
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const date = (v: unknown) => {
    const d = typeof v === 'string' ? new Date(v) : null;
    return d && !Number.isNaN(d.getTime()) ? d : null;
  };
  return { message, subject: text(details.subject), issuer: text(details.issuer), validFrom: date(details.valid_from), validTo: date(details.valid_to) };
}
