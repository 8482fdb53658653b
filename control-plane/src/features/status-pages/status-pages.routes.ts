// /status-pages: full CRUD for the organization; /status-pages/{slug}/public without credentials.
import Router from '@koa/router';
import { crudRoutes, NoQuery } from '../../http/crud-routes.js';
import { parseInput } from '../../http/validate.js';
import { CreateStatusPageInput, SlugParam, UpdateStatusPageInput, toStatusPageJson } from './status-pages.schema.js';
import type { StatusPagesService } from './status-pages.service.js';

/** Public pages may be polled by many visitors; a short shared cache spares the database. */
const PUBLIC_MAX_AGE_SECONDS = 30;

export function statusPagesRoutes(pages: StatusPagesService) {
  return crudRoutes({
    prefix: '/status-pages',
    what: 'status page',
    service: pages,
    listQuery: NoQuery,
    createInput: CreateStatusPageInput,
    updateInput: UpdateStatusPageInput,
    toJson: toStatusPageJson,
  });
}

export function publicStatusPageRoutes(pages: StatusPagesService): Router {
  const router = new Router();
  router.get('/status-pages/:slug/public', async (ctx) => {
    ctx.body = await pages.publicView(parseInput(SlugParam, ctx.params.slug, 'slug').toLowerCase());
    ctx.set('Cache-Control', `public, max-age=${PUBLIC_MAX_AGE_SECONDS}`);
  });
  return router;
}
