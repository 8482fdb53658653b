import type { EntityManager } from '@mikro-orm/postgresql';

/** The JSON documents that hold sealed values (at any depth), by table. */
const DOCUMENTS = { services: 'options', notification_channels: 'config' } as const;
/**
 * The text columns that each hold one sealed value, by table, with the table's key; read as a
 * document `{value}`. (Sign-ins in progress hold sealed PKCE verifiers too, for minutes only:
 * they end long before an old key is retired.)
 */
const VALUES = {
  organization_secrets: { column: 'value', key: 'id' },
  user_totp: { column: 'secret_sealed', key: 'id' },
  sso_settings: { column: 'client_secret_sealed', key: 'organization_id' },
} as const;
export type SealedTable = keyof typeof DOCUMENTS | keyof typeof VALUES;

export interface SealedDocument {
  table: SealedTable;
  id: string;
  document: Record<string, unknown>;
}

export interface SealedValuesRepository {
  /** Every document that holds at least one sealed value. */
  list(): Promise<SealedDocument[]>;
  /** Replaces a document unless it changed since it was read; false when it did. */
  replace(found: SealedDocument, next: Record<string, unknown>): Promise<boolean>;
}

export function createSealedValuesRepository(em: () => EntityManager): SealedValuesRepository {
  const isValue = (table: SealedTable): table is keyof typeof VALUES => table in VALUES;
  return {
    async list() {
      const found: SealedDocument[] = [];
      for (const [table, column] of Object.entries(DOCUMENTS) as [SealedTable, string][]) {
        const rows = await em().execute<{ id: string; document: Record<string, unknown> }[]>(`select id, ${column} as document from ${table} where ${column}::text like ?`, ['%"enc:v%']);
        found.push(...rows.map((r) => ({ table, id: r.id, document: r.document })));
      }
      for (const [table, { column, key }] of Object.entries(VALUES) as [SealedTable, { column: string; key: string }][]) {
        const rows = await em().execute<{ id: string; value: string }[]>(`select ${key} as id, ${column} as value from ${table} where ${column} like ?`, ['enc:v%']);
        found.push(...rows.map((r) => ({ table, id: r.id, document: { value: r.value } })));
      }
      return found;
    },
    async replace(found, next) {
      const rows = isValue(found.table)
        ? await em().execute<{ id: string }[]>(`update ${found.table} set ${VALUES[found.table].column} = ? where ${VALUES[found.table].key} = ? and ${VALUES[found.table].column} = ? returning 1`, [
            next.value,
            found.id,
            found.document.value,
          ])
        : await em().execute<{ id: string }[]>(`update ${found.table} set ${DOCUMENTS[found.table]} = ?::jsonb where id = ? and ${DOCUMENTS[found.table]} = ?::jsonb returning id`, [
            JSON.stringify(next),
            found.id,
            JSON.stringify(found.document),
          ]);
      return rows.length === 1;
    },
  };
}
