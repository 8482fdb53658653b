// A status page's incidents and maintenance as RSS 2.0 and Atom 1.0 (the `feed` library writes
// both formats to their standards). Every entry links to the page; an incident's entry
// carries its whole timeline, and its id stays the same as updates are posted, so readers
// show it as updated rather than new.
import { Feed } from 'feed';

export interface FeedIncident {
  id: string;
  title: string;
  status: string;
  impact: string;
  started_at: string;
  resolved_at: string | null;
  updated_at: string;
  affected: { service_name: string }[];
  updates: { status: string; message: string; created_at: string }[];
}

export interface FeedMaintenance {
  id: string;
  name: string;
  status: 'upcoming' | 'in_progress' | 'completed';
  starts_at: string;
  ends_at: string;
}

const WORDS: Record<string, string> = {
  investigating: 'Investigating', identified: 'Identified', monitoring: 'Monitoring', resolved: 'Resolved',
  upcoming: 'Scheduled maintenance', in_progress: 'Maintenance in progress', completed: 'Maintenance completed',
};
const utc = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

export function statusFeed(page: { title: string; description: string | null }, pageUrl: string, links: { rss: string; atom: string }, incidents: FeedIncident[], maintenance: FeedMaintenance[]): Feed {
  const entries = [
    ...incidents.map((i) => ({
      id: `${pageUrl}#incident-${i.id}`,
      title: `${WORDS[i.status] ?? i.status}: ${i.title}`,
      date: new Date(i.updated_at),
      published: new Date(i.started_at),
      description: [
        i.affected.length ? `Affected: ${i.affected.map((a) => a.service_name).join(', ')}.` : '',
        ...[...i.updates].reverse().map((u) => `${utc(u.created_at)} — ${WORDS[u.status] ?? u.status}: ${u.message}`),
      ].filter(Boolean).join('\n\n'),
    })),
    ...maintenance.map((m) => ({
      id: `${pageUrl}#maintenance-${m.id}-${m.starts_at}`,
      title: `${WORDS[m.status]}: ${m.name}`,
      date: new Date(m.status === 'completed' ? m.ends_at : m.starts_at),
      published: new Date(m.starts_at),
      description: `From ${utc(m.starts_at)} to ${utc(m.ends_at)}.`,
    })),
  ].sort((a, b) => b.date.getTime() - a.date.getTime());

  const feed = new Feed({
    id: pageUrl,
    title: page.title,
    description: page.description ?? `Incidents and maintenance of ${page.title}`,
    link: pageUrl,
    language: 'en',
    updated: entries[0]?.date ?? new Date(0),
    generator: 'Outpost',
    feedLinks: { rss: links.rss, atom: links.atom },
    author: { name: page.title, link: pageUrl },
    copyright: page.title,
  });
  for (const e of entries) feed.addItem({ ...e, guid: e.id, link: pageUrl });
  return feed;
}
