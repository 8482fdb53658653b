// /status-pages: full CRUD for the organization; /status-pages/{slug}/public without credentials.
import Router from '@koa/router';
import { crudOperations, crudRoutes, NoQuery } from '../../http/crud-routes.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import { CreateStatusPageInput, PublicStatusPageJson, SlugParam, StatusPageJson, UpdateStatusPageInput, toStatusPageJson } from './status-pages.schema.js';
import type { StatusPagesService } from './status-pages.service.js';

/** Public pages may be polled by many visitors; a short shared cache spares the database. */
const PUBLIC_MAX_AGE_SECONDS = 30;

const resource = { prefix: '/status-pages', what: 'status page', listQuery: NoQuery, createInput: CreateStatusPageInput, updateInput: UpdateStatusPageInput };

export const statusPagesOperations: ApiOperation[] = [
  // A slug already taken is a 409; a foreign service id a 404.
  ...crudOperations({ ...resource, tag: 'Status pages', item: StatusPageJson, errors: [404, 409] }),
  {
    method: 'get', path: '/status-pages/:slug/public', tag: 'Status pages', summary: 'A public status page', public: true,
    description: 'Needs no credentials; 404 unless the page exists and is public.',
    params: { slug: SlugParam }, responses: { 200: PublicStatusPageJson },
  },
];

export function statusPagesRoutes(pages: StatusPagesService) {
  return crudRoutes({ ...resource, service: pages, toJson: toStatusPageJson });
}

export function publicStatusPageRoutes(pages: StatusPagesService): Router {
  const router = new Router();
  router.get('/status-pages/:slug/public', async (ctx) => {
    ctx.body = await pages.publicView(parseInput(SlugParam, ctx.params.slug, 'slug').toLowerCase());
    ctx.set('Cache-Control', `public, max-age=${PUBLIC_MAX_AGE_SECONDS}`);
  });
  return router;
}
