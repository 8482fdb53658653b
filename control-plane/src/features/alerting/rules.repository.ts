import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tx } from '../../db/tx.js';
import type { AlertRule } from './rule.js';

export interface RulesRepository {
  insert(rule: Omit<AlertRule, 'createdAt' | 'updatedAt'>): Promise<AlertRule>;
  find(organizationIds: string[], ruleId: string): Promise<AlertRule | null>;
  list(organizationId: string, serviceId?: string): Promise<AlertRule[]>;
  update(ruleId: string, changes: Partial<Pick<AlertRule, 'serviceId' | 'name' | 'severity' | 'condition' | 'enabled'>>): Promise<AlertRule>;
  delete(ruleId: string): Promise<void>;
  /** The enabled rules of the organizations, read in the caller's transaction. */
  listEnabledFor(tx: Tx, organizationIds: string[]): Promise<AlertRule[]>;
}

const COLUMNS = 'id, organization_id, service_id, name, severity, condition, enabled, created_at, updated_at';

export function createRulesRepository(em: () => EntityManager): RulesRepository {
  const run = (sql: string, params: unknown[]) => em().execute<Record<string, unknown>[]>(sql, params);
  return {
    async insert(r) {
      const [row] = await run(
        `insert into alert_rules (id, organization_id, service_id, name, severity, condition, enabled) values (?, ?, ?, ?, ?, ?::jsonb, ?) returning ${COLUMNS}`,
        [r.id, r.organizationId, r.serviceId, r.name, r.severity, JSON.stringify(r.condition), r.enabled],
      );
      return fromRow(row!);
    },
    async find(organizationIds, ruleId) {
      if (organizationIds.length === 0) return null;
      const rows = await run(`select ${COLUMNS} from alert_rules where id = ? and organization_id in (${organizationIds.map(() => '?').join(',')})`, [ruleId, ...organizationIds]);
      return rows[0] ? fromRow(rows[0]) : null;
    },
    async list(organizationId, serviceId) {
      const rows = serviceId
        ? await run(`select ${COLUMNS} from alert_rules where organization_id = ? and service_id = ? order by created_at, id`, [organizationId, serviceId])
        : await run(`select ${COLUMNS} from alert_rules where organization_id = ? order by created_at, id`, [organizationId]);
      return rows.map(fromRow);
    },
    async update(ruleId, c) {
      const [row] = await run(
        `update alert_rules set
           service_id = case when ? then ? else service_id end,
           name = coalesce(?, name), severity = coalesce(?, severity),
           condition = coalesce(?::jsonb, condition), enabled = coalesce(?, enabled), updated_at = now()
         where id = ? returning ${COLUMNS}`,
        ['serviceId' in c, c.serviceId ?? null, c.name ?? null, c.severity ?? null, c.condition ? JSON.stringify(c.condition) : null, c.enabled ?? null, ruleId],
      );
      return fromRow(row!);
    },
    async delete(ruleId) {
      await run('delete from alert_rules where id = ?', [ruleId]);
    },
    async listEnabledFor(tx, organizationIds) {
      return (await tx.execute<Record<string, unknown>[]>(`select ${COLUMNS} from alert_rules where organization_id = any(?::uuid[]) and enabled`, [`{${organizationIds.join(',')}}`])).map(fromRow);
    },
  };
}

function fromRow(r: Record<string, unknown>): AlertRule {
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    serviceId: (r.service_id as string | null) ?? null,
    name: String(r.name),
    severity: r.severity as AlertRule['severity'],
    condition: (r.condition ?? {}) as AlertRule['condition'],
    enabled: Boolean(r.enabled),
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}
