// /status-pages: full CRUD for the organization; the public view, its history and the
// password form of a page, without credentials (the page's access decides who sees it).
import Router from '@koa/router';
import type { Context } from 'koa';
import { crudOperations, crudRoutes, NoQuery } from '../../http/crud-routes.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { schemeOf } from '../../http/client-address.js';
import { parseInput } from '../../http/validate.js';
import type { StatusPage } from './status-pages.repository.js';
import {
  CreateStatusPageInput, PublicHistoryJson, PublicHistoryQuery, PublicStatusPageJson, SlugParam, StatusPageJson, UnlockInput, UpdateStatusPageInput, toStatusPageJson,
} from './status-pages.schema.js';
import type { StatusPagesService } from './status-pages.service.js';
import { visitorOf } from './visitor.js';

/** Public pages may be polled by many visitors; a short shared cache spares the database. */
const PUBLIC_MAX_AGE_SECONDS = 30;

const resource = { prefix: '/status-pages', what: 'status page', listQuery: NoQuery, createInput: CreateStatusPageInput, updateInput: UpdateStatusPageInput };
const tag = 'Status pages';
const slug = { slug: SlugParam };
const WHO_SEES = "Whoever the page's access admits: anyone; a browser holding the cookie of /unlock (a password page answers 401 PASSWORD_REQUIRED without it); signed-in members (a Bearer credential); clients from its allowlist. Anyone else gets the 404 of an unknown slug.";

export const statusPagesOperations: ApiOperation[] = [
  // A slug or custom domain already taken is a 409; a foreign service id a 404.
  ...crudOperations({ ...resource, tag, item: StatusPageJson, errors: [404, 409] }),
  { method: 'get', path: '/status-pages/:slug/public', tag, summary: 'A public status page', public: true, description: WHO_SEES, params: slug, responses: { 200: PublicStatusPageJson }, errors: [401] },
  {
    method: 'get', path: '/status-pages/:slug/public/history', tag, summary: 'Past incidents and maintenance of a status page (90 days, newest first)', public: true,
    description: WHO_SEES, params: slug, query: PublicHistoryQuery, responses: { 200: PublicHistoryJson }, errors: [401],
  },
  {
    method: 'post', path: '/status-pages/:slug/unlock', tag, summary: "Open a password page with its password", public: true, params: slug, body: UnlockInput, responses: { 204: null }, errors: [429],
    description: 'The right password sets a signed cookie (7 days; a new password ends it); a wrong one is a 400, and too many from one address a 429.',
  },
];

export function statusPagesRoutes(pages: StatusPagesService) {
  return crudRoutes({ ...resource, service: pages, toJson: toStatusPageJson });
}

/** Anyone may cache a public page; what a password, membership or address opened stays with that visitor. */
export function setPageCaching(ctx: Pick<Context, 'set' | 'vary'>, page: Pick<StatusPage, 'access'>, maxAgeSeconds = PUBLIC_MAX_AGE_SECONDS): void {
  ctx.set('Cache-Control', page.access === 'public' ? `public, max-age=${maxAgeSeconds}` : 'private, no-cache');
  if (page.access !== 'public') ctx.vary('Cookie');
}

export function publicStatusPageRoutes(pages: StatusPagesService): Router {
  const router = new Router();
  const slugOf = (ctx: { params: Record<string, string | undefined> }) => parseInput(SlugParam, ctx.params.slug, 'slug').toLowerCase();
  router.get('/status-pages/:slug/public', async (ctx) => {
    const view = await pages.publicView(slugOf(ctx), visitorOf(ctx));
    ctx.body = view.body;
    setPageCaching(ctx, view.page);
  });
  router.get('/status-pages/:slug/public/history', async (ctx) => {
    const query = parseInput(PublicHistoryQuery, ctx.query, 'query');
    const history = await pages.publicHistory(slugOf(ctx), visitorOf(ctx), { before: query.before ? new Date(query.before) : undefined, limit: query.limit });
    ctx.body = history.body;
    setPageCaching(ctx, history.page);
  });
  router.post('/status-pages/:slug/unlock', async (ctx) => {
    const input = parseInput(UnlockInput, ctx.request.body);
    const cookie = await pages.unlock(slugOf(ctx), input.password, visitorOf(ctx));
    // Secure where the client came over TLS, to this server or to a trusted proxy in front of it.
    const secure = schemeOf(ctx) === 'https';
    if (secure) ctx.cookies.secure = true;
    ctx.cookies.set(cookie.name, cookie.value, { httpOnly: true, sameSite: 'lax', path: '/', maxAge: cookie.maxAgeSeconds * 1000, secure, overwrite: true });
    ctx.status = 204;
  });
  return router;
}
