// Direct SQL against the test database, for arranging what the API cannot (yet) express.
import pg from 'pg';
import { testDatabase } from './test-database.js';

export async function sql<T = Record<string, unknown>>(text: string, params: unknown[] = [], url?: string): Promise<T[]> {
  return withClient(url ?? (await testDatabase()).url, async (client) => (await client.query(text, params)).rows as T[]);
}

/** Runs `work` on a connection of its own to `url`, closed afterwards. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
