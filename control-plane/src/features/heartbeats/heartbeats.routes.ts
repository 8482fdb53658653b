import Router from '@koa/router';
import { z } from 'zod';
import { notFound } from '../../errors.js';
import { crudRoutes, NoQuery } from '../../http/crud-routes.js';
import type { Heartbeat } from './heartbeats.repository.js';
import type { HeartbeatsService, PingKind } from './heartbeats.service.js';
import { readOnly } from '../../http/validate.js';

const seconds = (field: string, min: number) =>
  z.number({ message: `${field} must be an integer` }).int(`${field} must be an integer`).min(min, `${field} must be at least ${min}`).max(30 * 86_400);
const fields = {
  name: z.string({ message: 'name must be a string' }).trim().min(1, 'name must not be empty').max(200),
  interval_seconds: seconds('interval_seconds', 1),
  grace_seconds: seconds('grace_seconds', 0),
};
export const CreateHeartbeatInput = z.strictObject({ ...fields, grace_seconds: fields.grace_seconds.default(60) });
export const UpdateHeartbeatInput = z.strictObject({
  ...readOnly('id', 'key', 'ping_url', 'status', 'last_ping_at', 'service_id', 'created_at'),
  name: fields.name.optional(),
  interval_seconds: fields.interval_seconds.optional(),
  grace_seconds: fields.grace_seconds.optional(),
});

function toHeartbeatJson(h: Heartbeat) {
  return {
    id: h.id,
    organization_id: h.organizationId,
    service_id: h.serviceId,
    name: h.name,
    interval_seconds: h.intervalSeconds,
    grace_seconds: h.graceSeconds,
    key: h.key,
    ping_url: `/api/v1/heartbeat/${h.key}`,
    status: h.status,
    last_ping_at: h.lastPingAt?.toISOString() ?? null,
    created_at: h.createdAt.toISOString(),
  };
}

export function heartbeatsRoutes(heartbeats: HeartbeatsService): Router {
  return crudRoutes({
    prefix: '/heartbeats',
    what: 'heartbeat',
    service: heartbeats,
    listQuery: NoQuery,
    createInput: CreateHeartbeatInput,
    updateInput: UpdateHeartbeatInput,
    toJson: toHeartbeatJson,
  });
}

/** The public ping: GET, POST or HEAD /heartbeat/:key, with /fail and /start as Healthchecks has. */
export function heartbeatPingRoutes(heartbeats: HeartbeatsService): Router {
  const router = new Router({ prefix: '/heartbeat' });
  const KEY = /^[A-Za-z0-9_-]{1,64}$/;
  for (const [path, kind] of [['/:key', 'ping'], ['/:key/fail', 'fail'], ['/:key/start', 'start']] as [string, PingKind][]) {
    router.all(path, async (ctx) => {
      if (!['GET', 'POST', 'HEAD'].includes(ctx.method)) {
        ctx.status = 405;
        ctx.body = { error: 'ping with GET, POST or HEAD' };
        return;
      }
      const key = ctx.params.key ?? '';
      if (!KEY.test(key)) throw notFound('heartbeat');
      await heartbeats.ping(key, kind);
      ctx.body = { status: 'ok' };
    });
  }
  return router;
}
