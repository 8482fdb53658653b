import Router, { type RouterContext } from '@koa/router';
import { z } from 'zod';
import { notFound } from '../../errors.js';
import { crudOperations, crudRoutes, NoQuery } from '../../http/crud-routes.js';
import type { ApiOperation, HttpMethod } from '../../http/openapi/api-operation.js';
import type { Heartbeat } from './heartbeats.repository.js';
import type { HeartbeatsService, PingKind } from './heartbeats.service.js';
import { CreateHeartbeatInput, HeartbeatJson, UpdateHeartbeatInput } from './heartbeats.schema.js';

const PING_KEY = /^[A-Za-z0-9_-]{1,64}$/;
const PINGS: [string, PingKind][] = [['/:key', 'ping'], ['/:key/fail', 'fail'], ['/:key/start', 'start']];
const PING_SUMMARY: Record<PingKind, string> = { ping: 'Record a ping', fail: 'Report a failure', start: 'Report that the job started' };

const resource = { prefix: '/heartbeats', what: 'heartbeat', listQuery: NoQuery, createInput: CreateHeartbeatInput, updateInput: UpdateHeartbeatInput };

export const heartbeatsOperations: ApiOperation[] = [
  ...crudOperations({ ...resource, tag: 'Heartbeats', item: HeartbeatJson }),
  ...PINGS.flatMap(([path, kind]) =>
    (['get', 'post', 'head'] as HttpMethod[]).map(
      (method): ApiOperation => ({
        method, path: `/heartbeat${path}`, tag: 'Heartbeats', summary: PING_SUMMARY[kind], public: true,
        params: { key: z.string().regex(PING_KEY) },
        responses: { 200: method === 'head' ? null : z.object({ status: z.literal('ok') }) },
      }),
    ),
  ),
];

function toHeartbeatJson(h: Heartbeat) {
  return {
    id: h.id,
    organization_id: h.organizationId,
    service_id: h.serviceId,
    name: h.name,
    interval_seconds: h.intervalSeconds,
    schedule: h.schedule,
    timezone: h.schedule === null ? null : h.timezone,
    grace_seconds: h.graceSeconds,
    max_runtime_seconds: h.maxRuntimeSeconds,
    key: h.key,
    ping_url: `/api/v1/heartbeat/${h.key}`,
    status: h.status,
    last_ping_at: h.lastPingAt?.toISOString() ?? null,
    last_started_at: h.lastStartedAt?.toISOString() ?? null,
    next_expected_at: h.expectedAt?.toISOString() ?? null,
    created_at: h.createdAt.toISOString(),
  };
}

export function heartbeatsRoutes(heartbeats: HeartbeatsService): Router {
  return crudRoutes({ ...resource, service: heartbeats, toJson: toHeartbeatJson });
}

/** The public ping: GET, POST or HEAD /heartbeat/:key, with /fail and /start as Healthchecks has. */
export function heartbeatPingRoutes(heartbeats: HeartbeatsService): Router {
  const router = new Router({ prefix: '/heartbeat' });
  for (const [path, kind] of PINGS) {
    const ping = async (ctx: RouterContext) => {
      const key = ctx.params.key ?? '';
      if (!PING_KEY.test(key)) throw notFound('heartbeat');
      await heartbeats.ping(key, kind);
      ctx.body = { status: 'ok' };
    };
    // GET also answers HEAD; other methods get the router's 405.
    router.get(path, ping).post(path, ping);
  }
  return router;
}
