// What every imported Uptime Kuma monitor shares: the service's name, interval, timeout,
// retries, pause, description and tags, and the context the per-type mappers are given.
import type { z } from 'zod';
import type { CheckType } from '../../../shared/src/check-types.js';
import type { HeartbeatEntry, ServiceEntry } from '../config-as-code/file-schema.js';
import { isTrue, numberAt, text, type KumaData, type KumaMonitor } from './kuma-data.js';
import type { ImportReport } from './import-report.js';

export type Obj = Record<string, unknown>;
export type Service = z.input<typeof ServiceEntry> & { options: Obj; tags: string[] };
export type Heartbeat = z.input<typeof HeartbeatEntry>;

export interface MonitorContext {
  monitor: KumaMonitor;
  /** Its name in Outpost (unique). */
  name: string;
  /** "monitor NAME", how the report names it. */
  where: string;
  data: KumaData;
  report: ImportReport;
}

/** What a monitor becomes: a service, a heartbeat (push), or nothing (reported). */
export type Mapped = { service: Service } | { heartbeat: Heartbeat } | undefined;

const MIN_INTERVAL_S = 5;
const MAX_INTERVAL_S = 86_400;
const MAX_TIMEOUT_S = 120;
const MAX_RETRIES = 10;
const MAX_RETRY_INTERVAL_S = 300;
/** Kuma's defaults: 60 s, and a timeout of 80% of the interval. */
const DEFAULT_INTERVAL_S = 60;

export function intervalOf(monitor: KumaMonitor): number {
  return numberAt(monitor.interval) ?? DEFAULT_INTERVAL_S;
}

/** The service of a monitor, with what every check type takes; the mapper adds its options. */
export function baseService(ctx: MonitorContext, checkType: CheckType, endpoint: string): Service {
  const { monitor: m, where, report } = ctx;
  const interval = intervalOf(m);
  const bounded = Math.min(MAX_INTERVAL_S, Math.max(MIN_INTERVAL_S, Math.round(interval)));
  if (bounded !== interval) report.unmapped(where, `interval ${interval}s is ${bounded}s in Outpost (whole seconds, ${MIN_INTERVAL_S}s to ${MAX_INTERVAL_S}s)`);
  const service: Service = {
    name: ctx.name,
    check_type: checkType,
    endpoint,
    check_interval_seconds: bounded,
    timeout_seconds: timeoutOf(ctx, interval),
    tags: m.tags.map((t) => (t.value ? `${t.name}:${t.value}` : t.name)),
    options: {},
    ...(text(m.description) ? { description: text(m.description)! } : {}),
    ...(isTrue(m.active) || m.active === undefined ? {} : { paused: true }),
  };
  retries(ctx, service.options);
  return service;
}

function timeoutOf({ monitor, where, report }: MonitorContext, interval: number): number {
  const given = numberAt(monitor.timeout);
  // Monitors saved before Kuma had a timeout used 80% of the interval.
  const seconds = given !== undefined && given > 0 ? given : interval * 0.8;
  const bounded = Math.min(MAX_TIMEOUT_S, Math.max(1, Math.ceil(seconds)));
  if (bounded !== seconds) report.unmapped(where, `timeout ${seconds}s is ${bounded}s in Outpost (whole seconds, 1s to ${MAX_TIMEOUT_S}s)`);
  return bounded;
}

/**
 * Kuma retries a failed check maxretries times, retryInterval apart, before the monitor is DOWN
 * (PENDING meanwhile): Outpost's agent does the same within one run with options.retries.
 */
function retries({ monitor, where, report }: MonitorContext, options: Obj): void {
  const count = numberAt(monitor.maxretries) ?? 0;
  if (count <= 0) return;
  options.retries = Math.min(MAX_RETRIES, count);
  if (count > MAX_RETRIES) report.unmapped(where, `retries ${count}: Outpost retries at most ${MAX_RETRIES} times; ${MAX_RETRIES} used`);
  const wait = numberAt(monitor.retry_interval) ?? intervalOf(monitor);
  options.retry_interval_seconds = Math.min(MAX_RETRY_INTERVAL_S, Math.max(1, Math.round(wait)));
  if (wait > MAX_RETRY_INTERVAL_S) report.unmapped(where, `retry interval ${wait}s is ${MAX_RETRY_INTERVAL_S}s in Outpost (its most)`);
}

export function skip(report: ImportReport, where: string, why: string): undefined {
  report.unmapped(where, `not imported: ${why}`);
  return undefined;
}
