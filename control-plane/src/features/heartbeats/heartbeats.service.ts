// Heartbeats (API.md): a job, cron or backup pings its URL; a ping is a passing result, a
// `/fail` ping a failing one, and silence past the expected time + grace a failing one too. A
// heartbeat is expected every interval_seconds or at each run of a cron schedule; a run that
// sent `/start` and does not finish within max_runtime_seconds fails as well. Each heartbeat is
// a monitored service, so statuses, rules, alerts and channels are the same.
import { randomBytes, randomUUID } from 'node:crypto';
import type { CheckType, InternalKindName } from '../../../../shared/src/check-types.js';
import type { Clock } from '../../clock.js';
import { notFound, validationFailed } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { IngestService } from '../result-pipeline/ingest.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { ServicesRepository } from '../services/services.repository.js';
import { expectationAfter, expectationAfterMiss, regraced, typicalIntervalSeconds, type Expectation, type HeartbeatTiming } from './heartbeat-schedule.js';
import type { Heartbeat, HeartbeatsRepository } from './heartbeats.repository.js';
import type { CreateHeartbeatInput, UpdateHeartbeatInput } from './heartbeats.schema.js';

// In the catalogue's internal kinds; stored like a check type, though no agent runs it.
export const HEARTBEAT_CHECK_TYPE = 'HEARTBEAT' satisfies InternalKindName as CheckType;
export type PingKind = 'ping' | 'fail' | 'start';

const ORIGIN = { agentId: 'heartbeat', location: 'heartbeat' };
const BATCH = 100;

const invalid = (path: string, message: string) => validationFailed(`invalid request body: ${path}: ${message}`, [{ path, message }]);

/** The timing an update leaves: sending one of interval_seconds or schedule switches to it. */
function updatedTiming(current: HeartbeatTiming, input: UpdateHeartbeatInput): HeartbeatTiming {
  if (input.interval_seconds != null) return { intervalSeconds: input.interval_seconds, schedule: null, timezone: 'UTC' };
  if (input.schedule != null) return { intervalSeconds: null, schedule: input.schedule, timezone: input.timezone ?? (current.schedule === null ? 'UTC' : current.timezone) };
  // Neither sent with a value: the current mode stays, unless its field was cleared.
  if (current.schedule === null ? input.interval_seconds === null : input.schedule === null) throw invalid('interval_seconds', 'interval_seconds or schedule is required');
  if (current.schedule === null) {
    if (input.timezone != null) throw invalid('timezone', 'timezone applies only to a schedule');
    return current;
  }
  return { ...current, timezone: input.timezone ?? current.timezone };
}

const timingOf = (h: HeartbeatTiming): HeartbeatTiming =>
  h.schedule === null ? { intervalSeconds: h.intervalSeconds, schedule: null, timezone: 'UTC' } : { intervalSeconds: null, schedule: h.schedule, timezone: h.timezone };
const sameTiming = (a: HeartbeatTiming, b: HeartbeatTiming) => a.intervalSeconds === b.intervalSeconds && a.schedule === b.schedule && a.timezone === b.timezone;

export function createHeartbeatsService(deps: {
  heartbeats: HeartbeatsRepository;
  services: ServicesRepository;
  access: OrganizationAccess;
  ingest: IngestService;
  clock: Clock;
  /** Told of each deadline written (a ping's or a started run's), so that the deadline job wakes by then. */
  deadlineSet: (at: Date) => void;
}) {
  const { heartbeats, services, access, clock } = deps;
  const deadlineSet = (at: Date | null) => {
    if (at) deps.deadlineSet(at);
  };

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
    async create(actor: Actor, input: CreateHeartbeatInput): Promise<Heartbeat> {
      const organizationId = await access.resolveWritable(actor);
      const now = clock.now();
      const timing: HeartbeatTiming =
        input.schedule != null
          ? { intervalSeconds: null, schedule: input.schedule, timezone: input.timezone ?? 'UTC' }
          : { intervalSeconds: input.interval_seconds!, schedule: null, timezone: 'UTC' };
      const id = randomUUID();
      const expectation = firstExpectation(timing, input.grace_seconds, now);
      // No locations: no agent is ever assigned a heartbeat; pings and the deadline job feed it.
      const service = await services.insertWithinPlan({
        id: randomUUID(), organizationId, name: input.name, description: null, environment: null, endpoint: 'heartbeat',
        checkType: HEARTBEAT_CHECK_TYPE, checkIntervalSeconds: typicalIntervalSeconds(timing, now), timeoutSeconds: 1, tags: ['heartbeat'], locations: [], options: {},
      });
      try {
        await heartbeats.insert({
          ...timing, ...expectation,
          id, organizationId, serviceId: service.id, key: randomBytes(18).toString('base64url'), graceSeconds: input.grace_seconds, maxRuntimeSeconds: input.max_runtime_seconds, createdAt: now,
        });
      } catch (err) {
        await services.delete(service.id);
        throw err;
      }
      deadlineSet(expectation.deadlineAt);
      return findIn(organizationId, id);
    },
    async update(actor: Actor, id: string, input: UpdateHeartbeatInput): Promise<Heartbeat> {
      const organizationId = await access.resolveWritable(actor);
      const current = await findIn(organizationId, id);
      const now = clock.now();
      const timing = updatedTiming(timingOf(current), input);
      const graceSeconds = input.grace_seconds ?? current.graceSeconds;
      const expectation = expectationOnUpdate(current, timing, graceSeconds, now);
      const changes = {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(sameTiming(timing, timingOf(current)) ? {} : { checkIntervalSeconds: typicalIntervalSeconds(timing, now) }),
      };
      if (Object.keys(changes).length > 0) await services.update(current.serviceId, changes, false);
      const maxRuntimeSeconds = input.max_runtime_seconds === undefined ? current.maxRuntimeSeconds : input.max_runtime_seconds;
      await heartbeats.update(id, { ...timing, graceSeconds, maxRuntimeSeconds, ...expectation });
      deadlineSet(expectation.deadlineAt);
      // A run under way is held to the new max runtime, counted from its start.
      if (current.lastStartedAt && maxRuntimeSeconds !== null) deadlineSet(new Date(current.lastStartedAt.getTime() + maxRuntimeSeconds * 1000));
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
      const now = clock.now();
      if (kind === 'start') {
        await heartbeats.started(heartbeat.id, now);
        if (heartbeat.maxRuntimeSeconds !== null) deadlineSet(new Date(now.getTime() + heartbeat.maxRuntimeSeconds * 1000));
        return;
      }
      const next = expectationAfter(heartbeat, heartbeat.graceSeconds, now);
      await heartbeats.pinged(heartbeat.id, now, next);
      deadlineSet(next.deadlineAt);
      await record(heartbeat, kind === 'ping', kind === 'ping' ? 'ping received' : 'the job reported a failure');
    },

    /**
     * Turns every passed deadline, and every started run past its max runtime, into a failing
     * result; safe on any number of replicas.
     */
    async recordMissed(): Promise<number> {
      const now = clock.now();
      const overdue = await heartbeats.claimOverdue(now, BATCH, (h) => expectationAfterMiss(h, h.graceSeconds, h.expectedAt, now));
      for (const h of overdue) await record(h, false, missedMessage(h));
      const overrun = await heartbeats.claimOverrun(now, BATCH);
      for (const h of overrun) await record(h, false, `started at ${h.lastStartedAt?.toISOString()}, not finished within ${h.maxRuntimeSeconds} s`);
      return overdue.length + overrun.length;
    },
    /** When recordMissed has work next; null when no deadline is set. */
    nextDeadline: () => heartbeats.nextDeadline(),
  };
}

/** A cron heartbeat expects its first run after creation; an interval one waits for a first ping. */
function firstExpectation(timing: HeartbeatTiming, graceSeconds: number, now: Date): Expectation {
  return timing.schedule === null ? { expectedAt: null, deadlineAt: null } : expectationAfter(timing, graceSeconds, now);
}

/**
 * A changed schedule expects its first run after now; a changed grace keeps a cron heartbeat's
 * expected run; an interval heartbeat counts from its last ping, as it always has.
 */
function expectationOnUpdate(current: Heartbeat, timing: HeartbeatTiming, graceSeconds: number, now: Date): Expectation {
  if (timing.schedule === null) return current.lastPingAt ? expectationAfter(timing, graceSeconds, current.lastPingAt) : { expectedAt: null, deadlineAt: null };
  if (sameTiming(timing, timingOf(current))) return regraced(current.expectedAt, graceSeconds);
  return firstExpectation(timing, graceSeconds, now);
}

function missedMessage(h: Heartbeat): string {
  if (h.schedule === null) return `no ping within ${h.intervalSeconds + h.graceSeconds} s`;
  return `no ping since the run due at ${h.expectedAt?.toISOString()}${h.timezone === 'UTC' ? '' : ` (${localTime(h.expectedAt, h.timezone)})`}`;
}

/** "2026-03-29 03:00 Europe/Berlin": the run's time as the schedule reads it. */
function localTime(at: Date | null, timezone: string): string {
  if (!at) return '';
  const text = new Intl.DateTimeFormat('sv-SE', { timeZone: timezone, dateStyle: 'short', timeStyle: 'short' }).format(at);
  return `${text} ${timezone}`;
}

export type HeartbeatsService = ReturnType<typeof createHeartbeatsService>;
