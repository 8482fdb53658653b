// Heartbeats (API.md): a job, cron or backup pings its URL; a ping is a passing result, a
// `/fail` ping a failing one, and silence past interval + grace a failing one too. Each
// heartbeat is a monitored service, so statuses, rules, alerts and channels are the same.
import { randomBytes, randomUUID } from 'node:crypto';
import type { CheckType, InternalKindName } from '../../../../shared/src/check-types.js';
import type { Clock } from '../../clock.js';
import { notFound } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { IngestService } from '../checks/ingest.service.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { ServicesRepository } from '../services/services.repository.js';
import type { Heartbeat, HeartbeatsRepository } from './heartbeats.repository.js';

// In the catalogue's internal kinds; stored like a check type, though no agent runs it.
export const HEARTBEAT_CHECK_TYPE = 'HEARTBEAT' satisfies InternalKindName as CheckType;
export type PingKind = 'ping' | 'fail' | 'start';

export interface HeartbeatInput {
  name: string;
  interval_seconds: number;
  grace_seconds: number;
}

const ORIGIN = { agentId: 'heartbeat', location: 'heartbeat' };

export function createHeartbeatsService(deps: {
  heartbeats: HeartbeatsRepository;
  services: ServicesRepository;
  access: OrganizationAccess;
  ingest: IngestService;
  clock: Clock;
}) {
  const { heartbeats, services, access, clock } = deps;

  const record = (h: Heartbeat, ok: boolean, message: string) =>
    deps.ingest.ingest({ ...ORIGIN, organizationId: h.organizationId }, [
      { id: randomUUID(), serviceId: h.serviceId, ok, responseTimeMs: 0, message, checkedAt: clock.now(), adHoc: false, details: {} },
    ]);

  const findIn = async (organizationId: string, id: string) => {
    const found = await heartbeats.find(organizationId, id);
    if (!found) throw notFound('heartbeat');
    return found;
  };

  return {
    async list(actor: Actor): Promise<Heartbeat[]> {
      return heartbeats.list(await access.resolveReadable(actor));
    },
    async get(actor: Actor, id: string): Promise<Heartbeat> {
      return findIn(await access.resolveReadable(actor), id);
    },
    async create(actor: Actor, input: HeartbeatInput): Promise<Heartbeat> {
      const organizationId = await access.resolveWritable(actor);
      const id = randomUUID();
      // No locations: no agent is ever assigned a heartbeat; pings and the deadline job feed it.
      const service = await services.insertWithinPlan({
        id: randomUUID(), organizationId, name: input.name, description: null, environment: null, endpoint: 'heartbeat',
        checkType: HEARTBEAT_CHECK_TYPE, checkIntervalSeconds: input.interval_seconds, timeoutSeconds: 1, tags: ['heartbeat'], locations: [], options: {},
      });
      try {
        await heartbeats.insert({ id, organizationId, serviceId: service.id, key: randomBytes(18).toString('base64url'), intervalSeconds: input.interval_seconds, graceSeconds: input.grace_seconds });
      } catch (err) {
        await services.delete(service.id);
        throw err;
      }
      return findIn(organizationId, id);
    },
    async update(actor: Actor, id: string, input: Partial<HeartbeatInput>): Promise<Heartbeat> {
      const organizationId = await access.resolveWritable(actor);
      const current = await findIn(organizationId, id);
      const changes = {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.interval_seconds !== undefined ? { checkIntervalSeconds: input.interval_seconds } : {}),
      };
      if (Object.keys(changes).length > 0) await services.update(current.serviceId, changes, false);
      await heartbeats.update(id, { intervalSeconds: input.interval_seconds ?? current.intervalSeconds, graceSeconds: input.grace_seconds ?? current.graceSeconds });
      return findIn(organizationId, id);
    },
    async remove(actor: Actor, id: string): Promise<void> {
      const current = await findIn(await access.resolveWritable(actor), id);
      await services.delete(current.serviceId);
    },

    /** A public ping; NOT_FOUND for an unknown key, and nothing else about it. */
    async ping(key: string, kind: PingKind): Promise<void> {
      const heartbeat = await heartbeats.findByKey(key);
      if (!heartbeat) throw notFound('heartbeat');
      if (kind === 'start') return heartbeats.started(heartbeat.id, clock.now());
      await heartbeats.pinged(heartbeat.id, clock.now());
      await record(heartbeat, kind === 'ping', kind === 'ping' ? 'ping received' : 'the job reported a failure');
    },

    /** Turns every passed deadline into a failing result; safe on any number of replicas. */
    async recordMissed(): Promise<number> {
      const overdue = await heartbeats.claimOverdue(clock.now(), 100);
      for (const h of overdue) await record(h, false, `no ping within ${h.intervalSeconds + h.graceSeconds} s`);
      return overdue.length;
    },
  };
}

export type HeartbeatsService = ReturnType<typeof createHeartbeatsService>;
