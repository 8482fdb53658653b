import type { EntityManager } from '@mikro-orm/postgresql';

/** The JSON documents that hold sealed values at their top level, by table. */
const DOCUMENTS = { services: 'options', notification_channels: 'config' } as const;
export type SealedTable = keyof typeof DOCUMENTS;

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
  return {
    async list() {
      const found: SealedDocument[] = [];
      for (const [table, column] of Object.entries(DOCUMENTS) as [SealedTable, string][]) {
        const rows = await em().execute<{ id: string; document: Record<string, unknown> }[]>(`select id, ${column} as document from ${table} where ${column}::text like ?`, ['%"enc:v%']);
        found.push(...rows.map((r) => ({ table, id: r.id, document: r.document })));
      }
      return found;
    },
    async replace(found, next) {
      const column = DOCUMENTS[found.table];
      const rows = await em().execute<{ id: string }[]>(`update ${found.table} set ${column} = ?::jsonb where id = ? and ${column} = ?::jsonb returning id`, [
        JSON.stringify(next),
        found.id,
        JSON.stringify(found.document),
      ]);
      return rows.length === 1;
    },
  };
}
