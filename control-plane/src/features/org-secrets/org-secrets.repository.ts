// Persistence of organization secrets. The value column holds the sealed value only; it is
// read by the resolver for agents and never by anything that answers a request.
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUniqueViolation } from '../../db/pg-errors.js';
import { AppError } from '../../errors.js';

export interface OrgSecret {
  id: string;
  organizationId: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A service whose options mention a secret somewhere (the caller finds out which). */
export interface ServiceMentioningSecrets {
  id: string;
  name: string;
  options: Record<string, unknown>;
}

export interface OrgSecretsRepository {
  /** CONFLICT when the organization has a secret of that name. */
  insert(secret: { id: string; organizationId: string; name: string; sealedValue: string }): Promise<OrgSecret>;
  find(organizationId: string, id: string): Promise<OrgSecret | null>;
  list(organizationId: string): Promise<OrgSecret[]>;
  /** A new value, and in the same transaction a new config version for the services using it. */
  replaceValue(id: string, sealedValue: string, serviceIds: string[]): Promise<OrgSecret>;
  delete(id: string): Promise<void>;
  /** The sealed values of these names, per organization: one statement for every organization. */
  sealedValues(organizationIds: string[], names: string[]): Promise<Map<string, Map<string, string>>>;
  /** The services whose options mention any secret, or with `name`, that secret. */
  servicesMentioningSecrets(organizationId: string, name?: string): Promise<ServiceMentioningSecrets[]>;
}

const COLUMNS = 'id, organization_id, name, created_at, updated_at';

/** A PostgreSQL array literal of ids or secret names, neither of which holds a comma, quote or brace. */
const arrayOf = (values: string[]) => `{${values.join(',')}}`;

export function createOrgSecretsRepository(em: () => EntityManager): OrgSecretsRepository {
  const run = (sql: string, params: unknown[], tx: EntityManager = em()) => tx.execute<Record<string, unknown>[]>(sql, params);
  return {
    async insert(s) {
      try {
        const [row] = await run(`insert into organization_secrets (id, organization_id, name, value) values (?, ?, ?, ?) returning ${COLUMNS}`, [
          s.id, s.organizationId, s.name, s.sealedValue,
        ]);
        return fromRow(row!);
      } catch (err) {
        if (isUniqueViolation(err, 'organization_secrets_name_key')) throw new AppError('CONFLICT', `a secret named "${s.name}" already exists`);
        throw err;
      }
    },
    async find(organizationId, id) {
      const [row] = await run(`select ${COLUMNS} from organization_secrets where id = ? and organization_id = ?`, [id, organizationId]);
      return row ? fromRow(row) : null;
    },
    async list(organizationId) {
      return (await run(`select ${COLUMNS} from organization_secrets where organization_id = ? order by name, id`, [organizationId])).map(fromRow);
    },
    async replaceValue(id, sealedValue, serviceIds) {
      return em().transactional(async (tx) => {
        const [row] = await run(`update organization_secrets set value = ?, updated_at = now() where id = ? returning ${COLUMNS}`, [sealedValue, id], tx);
        if (serviceIds.length > 0) await run('update services set config_version = config_version + 1 where id = any(?::uuid[])', [arrayOf(serviceIds)], tx);
        return fromRow(row!);
      });
    },
    async delete(id) {
      await run('delete from organization_secrets where id = ?', [id]);
    },
    async sealedValues(organizationIds, names) {
      const values = new Map<string, Map<string, string>>();
      if (organizationIds.length === 0 || names.length === 0) return values;
      const rows = await run('select organization_id, name, value from organization_secrets where organization_id = any(?::uuid[]) and name = any(?::text[])', [
        arrayOf(organizationIds), arrayOf(names),
      ]);
      for (const r of rows) {
        const org = String(r.organization_id);
        if (!values.has(org)) values.set(org, new Map());
        values.get(org)!.set(String(r.name), String(r.value));
      }
      return values;
    },
    async servicesMentioningSecrets(organizationId, name = '') {
      // A cheap superset: the caller parses the references of these few. A name needs no JSON escaping.
      const rows = await run('select id, name, options from services where organization_id = ? and strpos(options::text, ?) > 0 order by created_at, id', [organizationId, `secrets.${name}`]);
      return rows.map((r) => ({ id: String(r.id), name: String(r.name), options: r.options as Record<string, unknown> }));
    },
  };
}

function fromRow(r: Record<string, unknown>): OrgSecret {
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    name: String(r.name),
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}
