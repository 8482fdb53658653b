import type { EntityManager } from '@mikro-orm/postgresql';

/** The JSON documents that hold sealed values (at any depth), by table. */
const DOCUMENTS = { services: 'options', notification_channels: 'config' } as const;
/** The text columns that each hold one sealed value, by table; read as a document `{value}`. */
const VALUES = { organization_secrets: 'value' } as const;
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
      for (const [table, column] of Object.entries(VALUES) as [SealedTable, string][]) {
        const rows = await em().execute<{ id: string; value: string }[]>(`select id, ${column} as value from ${table} where ${column} like ?`, ['enc:v%']);
        found.push(...rows.map((r) => ({ table, id: r.id, document: { value: r.value } })));
      }
      return found;
    },
    async replace(found, next) {
      const rows = isValue(found.table)
        ? await em().execute<{ id: string }[]>(`update ${found.table} set ${VALUES[found.table]} = ? where id = ? and ${VALUES[found.table]} = ? returning id`, [
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
