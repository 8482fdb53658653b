// A status page's password is never shown by the API, so the plan cannot compare it as it
// compares other fields. What can be done: ask the page itself. Before planning, apply offers
// the file's password to each password page's /unlock (what a visitor's browser does); a page
// that opens has that password, and its row is marked so. A page that does not (another
// password, none yet, not a password page) gets the file's password sent. Export never does
// this: it writes no password.
import type { ApiClient } from '../api-client.js';
import { ApiError } from '../api-client.js';
import type { OutpostFile } from './file-schema.js';
import type { Row } from './kinds.js';

const CONFIRMED = Symbol('the password /unlock accepted');
type Marked = Row & { [CONFIRMED]?: string };

export function confirmedPassword(row: Row): string | undefined {
  return (row as Marked)[CONFIRMED];
}

/** Marks the rows of `pages` whose password is the one the file's page has. */
export async function confirmPagePasswords(api: ApiClient, file: OutpostFile, pages: Row[]): Promise<void> {
  for (const entry of file.status_pages as (OutpostFile['status_pages'][number] & { password?: string })[]) {
    const row = pages.find((p) => p.slug === entry.slug);
    if (entry.password === undefined || !row || row.access !== 'password' || !row.password_set) continue;
    try {
      await api.post(`/status-pages/${encodeURIComponent(row.slug)}/unlock`, { password: entry.password });
      (row as Marked)[CONFIRMED] = entry.password;
    } catch (err) {
      // A wrong password (400) or too many of them (429): not confirmed, so apply sends it.
      if (!(err instanceof ApiError)) throw err;
    }
  }
}
