// What a status page serves outside the API: its feeds (/status/{slug}/feed.rss and .atom), and
// on its custom domain the page itself at / (the dashboard's index.html told which page to show)
// with its feeds at /feed.rss and /feed.atom. Who may read a feed is the page's access, as for
// the page.
import type { Context, Next } from 'koa';
import { schemeOf } from '../../http/client-address.js';
import type { StatusPage } from './status-pages.repository.js';
import { setPageCaching } from './status-pages.routes.js';
import type { StatusPagesService } from './status-pages.service.js';
import { statusFeed } from './status-feed.js';
import { visitorOf } from './visitor.js';

const FEED_PATH = /^\/status\/([a-z0-9_-]{1,63})\/feed\.(rss|atom)$/i;
const DOMAIN_FEED_PATH = /^\/feed\.(rss|atom)$/;
const FEED_ENTRIES = 50;
/** Feed readers poll; a few minutes' cache costs them nothing. */
const FEED_MAX_AGE_SECONDS = 300;

/** The page a dashboard document stands for: a custom domain's page, told to the app; a public page's title. */
export interface ShownPage {
  slug: string | null;
  title: string | null;
}

export function statusSite(pages: StatusPagesService) {
  // A custom domain is a dotted name: an address or "localhost" is the dashboard's own host, asked nothing.
  const domainPage = async (ctx: Context): Promise<StatusPage | null> =>
    /^[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z][a-z0-9-]*$/i.test(ctx.hostname) ? pages.pageForDomain(ctx.hostname) : null;

  async function serveFeed(ctx: Context, slug: string, format: 'rss' | 'atom', base: string): Promise<void> {
    const page = await pages.visiblePage(slug, visitorOf(ctx));
    const origin = `${schemeOf(ctx)}://${ctx.host}`;
    const pageUrl = `${origin}${base || '/'}`;
    const { incidents, maintenance } = await pages.feedEntries(page, FEED_ENTRIES);
    const feed = statusFeed(page, pageUrl, { rss: `${origin}${base}/feed.rss`, atom: `${origin}${base}/feed.atom` }, incidents, maintenance);
    ctx.type = format === 'rss' ? 'application/rss+xml; charset=utf-8' : 'application/atom+xml; charset=utf-8';
    ctx.body = format === 'rss' ? feed.rss2() : feed.atom1();
    setPageCaching(ctx, page, FEED_MAX_AGE_SECONDS);
  }

  return {
    /** Answers feed requests; everything else goes on. */
    async middleware(ctx: Context, next: Next): Promise<void> {
      // Every request passes here: the API's go on at once.
      if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.path.startsWith('/api/')) return next();
      const feed = FEED_PATH.exec(ctx.path);
      if (feed) return serveFeed(ctx, feed[1]!.toLowerCase(), feed[2]!.toLowerCase() as 'rss' | 'atom', `/status/${feed[1]!.toLowerCase()}`);
      const domainFeed = DOMAIN_FEED_PATH.exec(ctx.path);
      if (domainFeed) {
        const page = await domainPage(ctx);
        if (page) return serveFeed(ctx, page.slug, domainFeed[1] as 'rss' | 'atom', '');
      }
      return next();
    },
    /** Which page a request for the dashboard's document shows, if any: a custom domain's at /, or /status/{slug}. */
    async shownPage(ctx: Context): Promise<ShownPage | null> {
      const onDomain = await domainPage(ctx);
      // Only a public page's title goes into the document: the others' names are theirs to keep.
      if (onDomain) return { slug: onDomain.slug, title: onDomain.access === 'public' ? onDomain.title : null };
      const slug = /^\/status\/([a-z0-9_-]{1,63})\/?$/i.exec(ctx.path)?.[1];
      if (!slug) return null;
      const page = await pages.visiblePage(slug, { ip: '', cookie: () => undefined, credential: undefined }).catch(() => null);
      return page ? { slug: null, title: page.title } : null;
    },
  };
}

export type StatusSite = ReturnType<typeof statusSite>;
