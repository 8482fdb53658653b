// Direct SQL against the test database, for arranging what the API cannot (yet) express.
import pg from 'pg';
import { testDatabase } from './test-database.js';

export async function sql<T = Record<string, unknown>>(text: string, params: unknown[] = [], url?: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url ?? (await testDatabase()).url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}
