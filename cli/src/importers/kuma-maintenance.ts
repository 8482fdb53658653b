// Uptime Kuma's maintenance as Outpost maintenance windows: a single window as a one-off
// (its wall-clock dates read in its time zone), the recurring strategies and cron as a cron
// schedule with a duration, which is how Kuma itself runs them.
import type { z } from 'zod';
import type { MaintenanceEntry } from '../config-as-code/file-schema.js';
import { isTrue, numberAt, text, type KumaData, type KumaMaintenance } from './kuma-data.js';
import { skip } from './kuma-service.js';
import type { ImportReport } from './import-report.js';

type Window = z.input<typeof MaintenanceEntry>;

export function importMaintenance(data: KumaData, serviceNames: Map<number, string>, report: ImportReport): Window[] {
  return data.maintenances.flatMap((m) => {
    const window = windowOf(m, data, serviceNames, report);
    return window ? [window] : [];
  });
}

function windowOf(m: KumaMaintenance, data: KumaData, serviceNames: Map<number, string>, report: ImportReport): Window | undefined {
  const where = `maintenance ${m.title}`;
  if (!isTrue(m.active)) return skip(report, where, 'it is paused in Uptime Kuma');
  if (m.strategy === 'manual') return skip(report, where, 'manual maintenance lasts until someone ends it, and an Outpost window has an end: silence the services by hand when needed (outpost silences)');
  // No monitor: Kuma shows it on status pages only; an Outpost window without services covers every service.
  const services = m.monitor_ids.map((id) => serviceNames.get(id)).filter((n): n is string => n !== undefined);
  if (services.length === 0) return skip(report, where, m.monitor_ids.length === 0 ? 'it covers no monitor (only status pages), and an Outpost window without services covers every service' : 'none of its monitors was imported');
  if (services.length < m.monitor_ids.length) report.unmapped(where, `${m.monitor_ids.length - services.length} of its monitors were not imported and are left out`);
  const timezone = timezoneOf(m, data, where, report);
  if (m.strategy === 'single') {
    const start = text(m.start_date);
    const end = text(m.end_date);
    if (!start || !end) return skip(report, where, 'a single window without both dates');
    return { name: m.title, starts_at: wallClockToIso(start, timezone), ends_at: wallClockToIso(end, timezone), services };
  }
  const schedule = cronOf(m, data, where, report);
  const minutes = Math.round((numberAt(m.duration) ?? 0) / 60);
  if (!schedule || minutes < 1) return skip(report, where, `its ${m.strategy} schedule has no cron or no duration`);
  if (text(m.start_date) || text(m.end_date)) report.unmapped(where, `its date range (${text(m.start_date) ?? '…'} to ${text(m.end_date) ?? '…'}) is not imported: the window recurs without end`);
  return { name: m.title, schedule, timezone, duration_minutes: minutes, services };
}

/** The cron Kuma generated; 2.x runs "every N days" from its last start instead, which a cron cannot say. */
function cronOf(m: KumaMaintenance, data: KumaData, where: string, report: ImportReport): string | undefined {
  const cron = text(m.cron)?.replace(/\s+/g, ' ').trim();
  const days = numberAt(m.interval_day) ?? 1;
  if (m.strategy !== 'recurring-interval' || days <= 1 || data.major === 1) return cron;
  const [hour, minute] = (text(m.start_time) ?? '00:00').split(':').map(Number);
  report.unmapped(where, `every ${days} days: imported as days 1, ${1 + days}, ${1 + 2 * days}... of each month (as Uptime Kuma 1.x ran it)`);
  return `${minute} ${hour} */${days} * *`;
}

function timezoneOf(m: KumaMaintenance, data: KumaData, where: string, report: ImportReport): string {
  const zone = text(m.timezone);
  if (zone && zone !== 'SAME_AS_SERVER') return zone;
  if (data.serverTimezone) return data.serverTimezone;
  report.unmapped(where, "its time zone is the Kuma server's, which the database does not name; UTC used");
  return 'UTC';
}

/** "2031-03-01 22:00" in a time zone, as an ISO instant. */
export function wallClockToIso(wallClock: string, timeZone: string): string {
  const [date, time = '00:00'] = wallClock.trim().split(/[ T]/);
  const [y, mo, d] = date!.split('-').map(Number);
  const [h, mi, s = 0] = time.split(':').map(Number);
  const asUtc = Date.UTC(y!, mo! - 1, d!, h!, mi!, s);
  // The zone's offset at that instant, found twice so that a DST change between the guesses settles.
  let instant = asUtc - offsetMs(asUtc, timeZone);
  instant = asUtc - offsetMs(instant, timeZone);
  return new Date(instant).toISOString().replace('.000Z', 'Z');
}

function offsetMs(instant: number, timeZone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(new Date(instant))
      .map((p) => [p.type, Number(p.value)]),
  );
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!) - Math.floor(instant / 1000) * 1000;
}
