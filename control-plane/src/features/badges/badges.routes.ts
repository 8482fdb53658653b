// /badges/{service_id}/*.svg without credentials; /services/{id}/badge-token for members.
import Router from '@koa/router';
import { actorOf } from '../../http/authenticate.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import { ServiceIdParam } from '../services/services.schema.js';
import { BadgeQuery, BadgeTokenJson, UptimeBadgeQuery, toBadgeTokenJson } from './badges.schema.js';
import { BADGE_KINDS, type BadgeKind, type BadgesService } from './badges.service.js';

/** Badges are fetched on every README view (through image proxies): a minute of caching spares the database. */
const CACHE = 'max-age=60';

const SHOWS: Record<BadgeKind, string> = {
  status: 'The current status: up (GREEN), degraded (YELLOW), down (RED) or pending (no result yet)',
  uptime: 'Uptime over `period` (default 30d), cut to two decimals; "no data" without checks',
  'response-time': 'Mean response time of the last 24 hours, in ms; "no data" without checks',
  certificate: 'Days left on the TLS certificate the latest checks saw (HTTPS checks and certificate watches); "unknown" when none did',
};

const ACCESS =
  'Answers for a service listed on a status page whose access is public, or with the right `token`; otherwise 404 with the same body as an unknown id. ' +
  'Cache-Control is `public, max-age=60`, or `private, max-age=60` when the token opened it.';

export const badgesOperations: ApiOperation[] = [
  ...BADGE_KINDS.map(
    (kind): ApiOperation => ({
      method: 'get', path: `/badges/:id/${kind}.svg`, tag: 'Badges', summary: `The ${kind.replace('-', ' ')} badge of a service`, public: true,
      description: `${SHOWS[kind]}. ${ACCESS}`,
      params: { id: ServiceIdParam }, query: kind === 'uptime' ? UptimeBadgeQuery : BadgeQuery,
      responses: { 200: { file: 'image/svg+xml' } },
    }),
  ),
  {
    method: 'post', path: '/services/:id/badge-token', tag: 'Badges', summary: "Create the service's badge token",
    description: 'Member or above. A new token replaces the one before, which stops working at once. The token is shown only in this answer.',
    params: { id: ServiceIdParam }, responses: { 201: BadgeTokenJson },
  },
  {
    method: 'delete', path: '/services/:id/badge-token', tag: 'Badges', summary: "Remove the service's badge token",
    description: 'Member or above. Its badges then answer only while a public status page lists the service.',
    params: { id: ServiceIdParam }, responses: { 204: null },
  },
];

export function publicBadgeRoutes(badges: BadgesService): Router {
  const router = new Router({ prefix: '/badges/:id' });
  for (const kind of BADGE_KINDS) {
    router.get(`/${kind}.svg`, async (ctx) => {
      const query = kind === 'uptime' ? parseInput(UptimeBadgeQuery, ctx.query, 'query') : { ...parseInput(BadgeQuery, ctx.query, 'query'), period: '30d' as const };
      const serviceId = parseInput(ServiceIdParam, ctx.params.id, 'service id');
      const badge = await badges.badge(kind, serviceId, { label: query.label || undefined, token: query.token, period: query.period });
      ctx.set('Cache-Control', `${badge.viaToken ? 'private' : 'public'}, ${CACHE}`);
      ctx.type = 'image/svg+xml';
      ctx.body = badge.svg;
    });
  }
  return router;
}

export function badgeTokenRoutes(badges: BadgesService): Router {
  const router = new Router({ prefix: '/services/:id/badge-token' });
  router.post('/', async (ctx) => {
    const token = await badges.createToken(actorOf(ctx), parseInput(ServiceIdParam, ctx.params.id, 'service id'));
    ctx.status = 201;
    ctx.body = toBadgeTokenJson(token);
  });
  router.delete('/', async (ctx) => {
    await badges.deleteToken(actorOf(ctx), parseInput(ServiceIdParam, ctx.params.id, 'service id'));
    ctx.status = 204;
  });
  return router;
}
