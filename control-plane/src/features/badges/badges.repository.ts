// What a badge needs of a service: whether anyone may see it (a public status page lists it,
// or a badge token opens it), its status, and the certificate its checks last saw.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ServiceStatus } from '../../../../shared/src/status.js';

export interface BadgeSubject {
  id: string;
  organizationId: string;
  status: ServiceStatus | null;
  /** sha256 (hex) of the badge token; null when the service has none. */
  tokenHash: string | null;
  /** Listed on a status page whose access is public (directly or in one of its groups). */
  onPublicPage: boolean;
}

export interface BadgesRepository {
  find(serviceId: string): Promise<BadgeSubject | null>;
  setTokenHash(serviceId: string, hash: string | null): Promise<void>;
  /** When the service's TLS certificate expires, as its newest checks that saw one report it; null when none did. */
  certificateValidTo(serviceId: string): Promise<Date | null>;
}

/** Results read back for a certificate: a few failed checks (no handshake) in a row still leave one to read. */
const CERTIFICATE_LOOKBACK = 50;

export function createBadgesRepository(em: () => EntityManager): BadgesRepository {
  const run = (sql: string, params: unknown[]) => em().execute<Record<string, unknown>[]>(sql, params);
  return {
    async find(serviceId) {
      const [row] = await run(
        `select s.id, s.organization_id, s.status, s.badge_token_hash,
                exists (select 1 from status_page_services ps join status_pages p on p.id = ps.status_page_id
                         where ps.service_id = s.id and p.access = 'public')
                or exists (select 1 from status_pages p, jsonb_array_elements(p.groups) g
                            where p.organization_id = s.organization_id and p.access = 'public' and g->'service_ids' @> jsonb_build_array(s.id::text)) as on_public_page
           from services s where s.id = ?`,
        [serviceId],
      );
      if (!row) return null;
      return {
        id: String(row.id),
        organizationId: String(row.organization_id),
        status: (row.status as ServiceStatus | null) ?? null,
        tokenHash: (row.badge_token_hash as string | null) ?? null,
        onPublicPage: Boolean(row.on_public_page),
      };
    },

    async setTokenHash(serviceId, hash) {
      await run('update services set badge_token_hash = ? where id = ?', [hash, serviceId]);
    },

    // HTTPS checks report tls_valid_to, TLS_CERTIFICATE checks (certificate watches) valid_to.
    async certificateValidTo(serviceId) {
      const [row] = await run(
        `select coalesce(details->>'tls_valid_to', details->>'valid_to') as valid_to
           from (select details, checked_at from check_results where service_id = ? order by checked_at desc limit ?) as r
          where coalesce(details->>'tls_valid_to', details->>'valid_to') is not null
          order by checked_at desc limit 1`,
        [serviceId, CERTIFICATE_LOOKBACK],
      );
      const validTo = row ? new Date(String(row.valid_to)) : null;
      return validTo && !Number.isNaN(validTo.getTime()) ? validTo : null;
    },
  };
}
