// A status page named on the command line by its slug (as in its URL) or its id; the API's
// per-page paths take the id.
import type { ApiClient } from '../api-client.js';
import { CliError } from '../cli-error.js';

export async function findStatusPageId(api: ApiClient, ref: string): Promise<string> {
  const wanted = ref.trim().toLowerCase();
  const pages = await api.get<{ id: string; slug: string }[]>('/status-pages');
  const page = pages.find((p) => p.id === wanted || p.slug === wanted);
  if (!page) throw new CliError(`no status page "${ref}" (give its slug or id)`);
  return page.id;
}
