// Subscribers of status pages: e-mail addresses (active once confirmed) and webhooks (active at
// once), each optionally narrowed to some of the page's services.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tx } from '../../db/tx.js';
import { jsonColumn } from '../../db/json-column.js';

export interface Subscriber {
  id: string;
  statusPageId: string;
  email: string | null;
  webhookUrl: string | null;
  componentIds: string[];
  confirmedAt: Date | null;
  createdAt: Date;
}

/** What subscriber mails and webhooks say of a page. */
export interface PageRef {
  id: string;
  organizationId: string;
  slug: string;
  title: string;
}

export interface NewSubscriber {
  id: string;
  organizationId: string;
  statusPageId: string;
  componentIds: string[];
}

export interface SubscribersRepository {
  /** The page of this organization, or null. */
  findPage(organizationId: string, pageId: string): Promise<PageRef | null>;
  /** Adds the address, or finds it (an unconfirmed one takes the new components); answers the subscriber's id and whether it is confirmed. */
  addEmail(tx: Tx, s: NewSubscriber & { email: string }): Promise<{ id: string; confirmed: boolean }>;
  /** Adds the webhook, confirmed at `at`; one already there is left as it is. */
  addWebhook(tx: Tx, s: NewSubscriber & { webhookUrl: string; at: Date }): Promise<void>;
  /** Confirms the subscriber; its page, or null when it is gone. */
  confirm(id: string, at: Date): Promise<PageRef | null>;
  /** Removes the subscriber wherever it is; answers its page, or null when it was gone already. */
  remove(id: string): Promise<PageRef | null>;
  removeFromPage(pageId: string, id: string): Promise<boolean>;
  list(pageId: string): Promise<Subscriber[]>;
}

/** The page of the rows a statement named `changed` touched. */
const PAGE_OF_CHANGED = 'select p.id, p.organization_id, p.slug, p.title from status_pages p join changed on p.id = changed.status_page_id';

export function createSubscribersRepository(em: () => EntityManager): SubscribersRepository {
  const run = (sql: string, params: unknown[], tx: EntityManager = em()) => tx.execute<Record<string, unknown>[]>(sql, params);
  const pageOrNull = (rows: Record<string, unknown>[]) => (rows[0] ? toPage(rows[0]) : null);

  return {
    async findPage(organizationId, pageId) {
      return pageOrNull(await run('select id, organization_id, slug, title from status_pages where id = ? and organization_id = ?', [pageId, organizationId]));
    },
    async addEmail(tx, s) {
      const [row] = await run(
        `insert into status_page_subscribers (id, organization_id, status_page_id, email, component_ids) values (?, ?, ?, ?, ?::jsonb)
         on conflict (status_page_id, lower(email)) where email is not null
         do update set component_ids = case when status_page_subscribers.confirmed_at is null then excluded.component_ids else status_page_subscribers.component_ids end
         returning id, confirmed_at`,
        [s.id, s.organizationId, s.statusPageId, s.email, JSON.stringify(s.componentIds)],
        tx,
      );
      return { id: String(row!.id), confirmed: row!.confirmed_at !== null };
    },
    async addWebhook(tx, s) {
      await run(
        `insert into status_page_subscribers (id, organization_id, status_page_id, webhook_url, component_ids, confirmed_at) values (?, ?, ?, ?, ?::jsonb, ?)
         on conflict (status_page_id, webhook_url) where webhook_url is not null do nothing`,
        [s.id, s.organizationId, s.statusPageId, s.webhookUrl, JSON.stringify(s.componentIds), s.at.toISOString()],
        tx,
      );
    },
    async confirm(id, at) {
      // A second click keeps the first confirmation's time.
      const rows = await run(`with changed as (update status_page_subscribers set confirmed_at = coalesce(confirmed_at, ?) where id = ? returning status_page_id) ${PAGE_OF_CHANGED}`, [
        at.toISOString(),
        id,
      ]);
      return pageOrNull(rows);
    },
    async remove(id) {
      return pageOrNull(await run(`with changed as (delete from status_page_subscribers where id = ? returning status_page_id) ${PAGE_OF_CHANGED}`, [id]));
    },
    async removeFromPage(pageId, id) {
      const rows = await run('delete from status_page_subscribers where id = ? and status_page_id = ? returning id', [id, pageId]);
      return rows.length > 0;
    },
    async list(pageId) {
      const rows = await run('select * from status_page_subscribers where status_page_id = ? order by created_at, id', [pageId]);
      return rows.map(toSubscriber);
    },
  };
}


function toPage(r: Record<string, unknown>): PageRef {
  return { id: String(r.id), organizationId: String(r.organization_id), slug: String(r.slug), title: String(r.title) };
}

function toSubscriber(r: Record<string, unknown>): Subscriber {
  return {
    id: String(r.id),
    statusPageId: String(r.status_page_id),
    email: (r.email as string | null) ?? null,
    webhookUrl: (r.webhook_url as string | null) ?? null,
    componentIds: jsonColumn<string[]>(r.component_ids),
    confirmedAt: r.confirmed_at ? new Date(r.confirmed_at as string) : null,
    createdAt: new Date(r.created_at as string),
  };
}
