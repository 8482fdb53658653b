// Uptime Kuma (a kuma.db of 1.23 or 2.x, or a 1.x JSON backup, already read as KumaData) as an
// outpost.yaml: monitors become services (push monitors heartbeats), group monitors tags on their
// members, notifications channels with a rule per monitor that used them, maintenance windows and
// status pages. What has no faithful equivalent goes to the report; secrets become ${ENV}s.
import type { z } from 'zod';
import type { RuleEntry, StatusPageEntry } from '../config-as-code/file-schema.js';
import type { ImportedFile, ImportResult } from './gatus.js';
import { ImportReport } from './import-report.js';
import { isTrue, numberAt, type KumaData, type KumaMonitor, type KumaStatusPage } from './kuma-data.js';
import { importMaintenance } from './kuma-maintenance.js';
import { mapMonitor } from './kuma-monitors.js';
import { importNotifications, type ImportedChannels } from './kuma-notifications.js';
import { intervalOf, skip } from './kuma-service.js';

type Rule = z.input<typeof RuleEntry>;

export function importKuma(data: KumaData): ImportResult {
  const report = new ImportReport();
  const file: ImportedFile = { services: [], heartbeats: [], notification_channels: [], alert_rules: [], maintenance_windows: [], status_pages: [] };
  const channels = importNotifications(data.notifications, report);
  file.notification_channels.push(...channels.channels);

  const groups = new Groups(data.monitors);
  const names = uniqueNames(data.monitors, groups);
  /** Kuma id -> Outpost name, for the monitors that became services (maintenance, status pages). */
  const services = new Map<number, string>();
  for (const monitor of data.monitors) {
    const name = names.get(monitor.id)!;
    const where = `monitor ${name}`;
    if (monitor.type === 'group') {
      groupRule(monitor, groups, channels, report).forEach((r) => file.alert_rules.push(r));
      continue;
    }
    const mapped = mapMonitor({ monitor, name, where, data, report });
    if (!mapped) continue;
    if ('service' in mapped) {
      mapped.service.tags = [...new Set([...mapped.service.tags, ...groups.tagsOf(monitor)])];
      file.services.push(mapped.service);
      services.set(monitor.id, name);
    } else file.heartbeats.push(mapped.heartbeat);
    const rule = monitorRule(monitor, name, channels);
    if (rule) file.alert_rules.push(rule);
  }
  file.maintenance_windows.push(...importMaintenance(data, services, report));
  for (const page of data.statusPages) {
    const imported = statusPage(page, services, report);
    if (imported) file.status_pages!.push(imported);
  }
  if (!data.complete) report.unmapped('backup', 'a JSON backup holds monitors and notifications only: maintenance, status pages, proxies and Docker hosts come with the kuma.db');
  else report.unmapped('history', 'heartbeats, uptime, incidents and certificate data are not imported: Outpost keeps its own history from the first check');
  return { file, report };
}

/** Group monitors: Outpost has none, so each member carries the tag of every group it sits in. */
class Groups {
  private readonly byId: Map<number, KumaMonitor>;

  constructor(monitors: KumaMonitor[]) {
    this.byId = new Map(monitors.map((m) => [m.id, m]));
  }

  /** The names of the groups the monitor sits in, innermost first. */
  tagsOf(monitor: KumaMonitor): string[] {
    const tags: string[] = [];
    const seen = new Set<number>();
    for (let parent = this.parentOf(monitor); parent && !seen.has(parent.id); parent = this.parentOf(parent)) {
      seen.add(parent.id);
      tags.push(parent.name);
    }
    return tags;
  }

  parentOf(monitor: KumaMonitor): KumaMonitor | undefined {
    const id = numberAt(monitor.parent);
    return id === undefined ? undefined : this.byId.get(id);
  }

  members(group: KumaMonitor): KumaMonitor[] {
    return [...this.byId.values()].filter((m) => this.tagsOf(m).includes(group.name));
  }
}

/** Outpost names are unique in an organization; Kuma's need not be. */
function uniqueNames(monitors: KumaMonitor[], groups: Groups): Map<number, string> {
  const taken = new Set<string>();
  const names = new Map<number, string>();
  for (const m of monitors) {
    const base = m.name.trim() || `monitor ${m.id}`;
    let name = base;
    const group = groups.parentOf(m)?.name;
    if (taken.has(name) && group) name = `${group}/${base}`;
    for (let n = 2; taken.has(name); n++) name = `${base} (${n})`;
    taken.add(name);
    names.set(m.id, name);
  }
  return names;
}

function channelsOf(monitor: KumaMonitor, channels: ImportedChannels): string[] {
  return [...new Set(monitor.notification_ids.flatMap((id) => channels.byNotification.get(id) ?? []))];
}

/**
 * Kuma notifies a monitor's notifications when it goes DOWN (after its retries, which the
 * service's options.retries carry) and when it is UP again, and repeats every resendInterval
 * checks while it stays DOWN.
 */
function monitorRule(monitor: KumaMonitor, name: string, channels: ImportedChannels): Rule | undefined {
  const targets = channelsOf(monitor, channels);
  if (targets.length === 0) return undefined;
  return { name: `${name}: notify`, service: name, severity: 'critical', consecutive_failures: 1, channels: targets, ...repeat(monitor) };
}

function repeat(monitor: KumaMonitor): Partial<Rule> {
  const every = numberAt(monitor.resend_interval) ?? 0;
  return every > 0 ? { repeat_interval_minutes: Math.min(10_080, Math.max(1, Math.round((every * intervalOf(monitor)) / 60))) } : {};
}

/** A group is DOWN when a member is: a rule on the members' tag notifies the group's channels. */
function groupRule(group: KumaMonitor, groups: Groups, channels: ImportedChannels, report: ImportReport): Rule[] {
  const where = `group ${group.name}`;
  const members = groups.members(group).filter((m) => m.type !== 'group');
  report.unmapped(where, `Outpost has no monitor groups: its ${members.length} monitors carry the tag "${group.name}"`);
  const targets = channelsOf(group, channels);
  if (targets.length === 0) return [];
  if (!isTrue(group.active) && group.active !== undefined) report.unmapped(where, 'paused: its rule is imported disabled');
  return [
    {
      name: `${group.name} (group): notify`,
      selector: { tags: [group.name] },
      severity: 'critical',
      consecutive_failures: 1,
      channels: targets,
      ...repeat(group),
      ...(isTrue(group.active) || group.active === undefined ? {} : { enabled: false }),
    },
  ];
}

const SLUG = /^[a-z0-9](?:[a-z0-9_-]{0,61}[a-z0-9])?$/;
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

type StatusPage = z.input<typeof StatusPageEntry>;

function statusPage(page: KumaStatusPage, services: Map<number, string>, report: ImportReport): StatusPage | undefined {
  const where = `status page ${page.slug}`;
  if (!SLUG.test(page.slug)) return skip(report, where, 'its slug is not one Outpost takes (a-z, 0-9, - and _)');
  const ids = page.groups.flatMap((g) => g.monitor_ids);
  const imported = new Set(ids.filter((id) => services.has(id)));
  if (imported.size < new Set(ids).size) report.unmapped(where, `${new Set(ids).size - imported.size} of its monitors were not imported (or are heartbeats) and are left out`);
  if (page.password) report.unmapped(where, 'it is password-protected in Uptime Kuma: imported as a private page');
  if (page.incidents > 0) report.unmapped(where, 'its incident is not imported: post it again in Outpost if it still holds');
  report.unmapped(where, 'logo, theme, footer and custom CSS are not imported');
  return {
    slug: page.slug,
    title: page.title,
    description: page.description,
    public: page.published && !page.password,
    ...customDomain(page, where, report),
    groups: componentsOf(page, services, where, report),
  };
}

/** Kuma answers on several domains; an Outpost page on one: the first that is a host name. */
function customDomain(page: KumaStatusPage, where: string, report: ImportReport): Pick<StatusPage, 'custom_domain'> {
  const domains = page.domains.map((d) => d.trim().toLowerCase());
  const domain = domains.find((d) => DOMAIN.test(d));
  const rest = domains.filter((d) => d !== domain);
  if (rest.length > 0) report.unmapped(where, `a page has one custom domain in Outpost: ${domain ? `${domain} is imported; ` : ''}${rest.join(', ')} ${rest.length === 1 ? 'is' : 'are'} not`);
  return domain ? { custom_domain: domain } : {};
}

/** Kuma's sections become groups (components) of the services imported from their monitors. */
function componentsOf(page: KumaStatusPage, services: Map<number, string>, where: string, report: ImportReport): { name: string; services: string[] }[] {
  const placed = new Set<string>();
  const groups: { name: string; services: string[] }[] = [];
  for (const section of page.groups) {
    const name = section.name.trim() || 'Services';
    const names = section.monitor_ids.map((id) => services.get(id)).filter((n): n is string => n !== undefined);
    const own = [...new Set(names.filter((n) => !placed.has(n)))];
    const twice = [...new Set(names.filter((n) => placed.has(n)))];
    own.forEach((n) => placed.add(n));
    if (own.length > 0) groups.push({ name, services: own });
    if (twice.length > 0) {
      const left = own.length === 0 ? '; the section is left out' : '';
      report.unmapped(where, `section ${name}: ${twice.join(', ')} ${twice.length === 1 ? 'is' : 'are'} in an earlier section already, and a service belongs to one group${left}`);
    } else if (own.length === 0 && section.monitor_ids.length > 0) report.unmapped(where, `section ${name}: none of its monitors was imported; left out`);
  }
  return groups;
}
