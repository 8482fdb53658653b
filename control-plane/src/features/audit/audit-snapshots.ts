// How each audited resource looks, for the before and after of its audit rows: read through the
// feature's own service (with the acting user's rights) and shaped by the feature's own JSON
// mapper, so a row shows what the API shows. Fields that move without anyone changing the
// configuration (a service's status, an agent's last contact) are left out: they would show as
// changes made by whoever happened to save at that moment.
import type { Clock } from '../../clock.js';
import type { Actor } from '../auth/actor.js';
import type { ProfileService } from '../auth/profile.service.js';
import type { AgentsService } from '../agents/agents.service.js';
import { toAgentJson } from '../agents/agents.schema.js';
import { toAlertJson } from '../alerting/alert.js';
import type { AlertsService } from '../alerting/alerts.service.js';
import { toRuleJson } from '../alerting/rules.schema.js';
import type { RulesService } from '../alerting/rules.service.js';
import type { ApiKeysService } from '../api-keys/api-keys.service.js';
import { toPolicyJson } from '../escalation/policy.js';
import type { EscalationService } from '../escalation/escalation.service.js';
import type { HeartbeatsService } from '../heartbeats/heartbeats.service.js';
import { toIncidentJson } from '../incidents/incidents.schema.js';
import type { IncidentsService } from '../incidents/incidents.service.js';
import { toWindowJson } from '../maintenance/maintenance.schema.js';
import type { MaintenanceService } from '../maintenance/maintenance.service.js';
import { toChannelJson } from '../notifications/channels.schema.js';
import type { ChannelsService } from '../notifications/channels.service.js';
import { toSecretJson } from '../org-secrets/org-secrets.schema.js';
import type { OrgSecretsService } from '../org-secrets/org-secrets.service.js';
import type { OrganizationService } from '../organizations/organization.service.js';
import { toReportSettingsJson } from '../reports/reports.schema.js';
import type { ReportSettingsService } from '../reports/report-settings.service.js';
import { toServiceJson } from '../services/services.schema.js';
import type { ServicesService } from '../services/services.service.js';
import { toSilenceJson } from '../silences/silences.schema.js';
import type { SilencesService } from '../silences/silences.service.js';
import { toSslCertificateJson } from '../ssl-certificates/ssl-certificates.schema.js';
import type { SslCertificatesService } from '../ssl-certificates/ssl-certificates.service.js';
import { toStatusPageJson } from '../status-pages/status-pages.schema.js';
import type { StatusPagesService } from '../status-pages/status-pages.service.js';
import { toSubscriberJson } from '../subscribers/subscribers.schema.js';
import type { SubscribersService } from '../subscribers/subscribers.service.js';
import { toSsoSettingsJson } from '../sso/sso.schema.js';
import type { SsoSettingsService } from '../sso/sso-settings.service.js';
import { toTeamJson } from '../teams/teams.schema.js';
import type { TeamsService } from '../teams/teams.service.js';

type Json = Record<string, unknown>;

/** The resource `id` (with the other parameters of its path) as the actor may see it; null when it does not exist. */
export type Snapshot = (actor: Actor, id: string | null, params: Readonly<Record<string, string>>) => Promise<Json | null>;
export type SnapshotRegistry = Readonly<Record<string, Snapshot>>;

export interface AuditedServices {
  services: Pick<ServicesService, 'get'>;
  rules: Pick<RulesService, 'get'>;
  alerts: Pick<AlertsService, 'get'>;
  channels: Pick<ChannelsService, 'get'>;
  escalation: Pick<EscalationService, 'get'>;
  maintenance: Pick<MaintenanceService, 'get'>;
  silences: Pick<SilencesService, 'get'>;
  statusPages: Pick<StatusPagesService, 'get'>;
  incidents: Pick<IncidentsService, 'get'>;
  subscribers: Pick<SubscribersService, 'list'>;
  teams: Pick<TeamsService, 'get'>;
  organization: Pick<OrganizationService, 'get' | 'members'>;
  profile: Pick<ProfileService, 'get'>;
  apiKeys: Pick<ApiKeysService, 'get'>;
  orgSecrets: Pick<OrgSecretsService, 'get'>;
  agents: Pick<AgentsService, 'get'>;
  heartbeats: Pick<HeartbeatsService, 'get'>;
  sslCertificates: Pick<SslCertificatesService, 'get'>;
  reportSettings: Pick<ReportSettingsService, 'get'>;
  ssoSettings: Pick<SsoSettingsService, 'get'>;
}

const without = (json: Json, ...names: string[]): Json => Object.fromEntries(Object.entries(json).filter(([key]) => !names.includes(key)));

/** Reads by id; a resource without one (the organization, settings) ignores it. */
const byId = (read: (actor: Actor, id: string) => Promise<Json>): Snapshot => (actor, id) => (id === null ? Promise.resolve(null) : read(actor, id));

export function auditSnapshots(s: AuditedServices, clock: Clock): SnapshotRegistry {
  const now = () => clock.now();
  return {
    service: byId(async (a, id) => without(toServiceJson(await s.services.get(a, id)), 'status', 'last_checked_at', 'last_response_time_ms', 'stale', 'last_result_at', 'flapping', 'suppressed_by')),
    alert_rule: byId(async (a, id) => toRuleJson(await s.rules.get(a, id))),
    alert: byId(async (a, id) => toAlertJson(await s.alerts.get(a, id))),
    // The sealed value stands in for a secret: its last characters change when the secret does,
    // and tell nothing of it (the trail masks those keys anyway).
    notification_channel: byId(async (a, id) => toChannelJson(await s.channels.get(a, id), (sealed) => sealed)),
    escalation_policy: byId(async (a, id) => toPolicyJson(await s.escalation.get(a, id))),
    maintenance_window: byId(async (a, id) => without(toWindowJson(await s.maintenance.get(a, id), now()), 'active', 'next_occurrences')),
    silence: byId(async (a, id) => without(toSilenceJson(await s.silences.get(a, id), now()), 'state')),
    status_page: byId(async (a, id) => toStatusPageJson(await s.statusPages.get(a, id))),
    incident: async (a, id, params) => (id === null || !params.id ? null : toIncidentJson(await s.incidents.get(a, params.id, id))),
    subscriber: async (a, id, params) => {
      const found = id === null || !params.id ? undefined : (await s.subscribers.list(a, params.id)).find((sub) => sub.id === id);
      return found ? toSubscriberJson(found) : null;
    },
    team: byId(async (a, id) => toTeamJson(await s.teams.get(a, id))),
    organization: async (a) => {
      const o = await s.organization.get(a);
      return { id: o.id, name: o.name, slug: o.slug, plan: o.plan };
    },
    member: byId(async (a, id) => {
      const m = (await s.organization.members(a)).find((member) => member.userId === id);
      if (!m) throw new Error('member not found');
      return { user_id: m.userId, email: m.email, full_name: m.fullName, role: m.role };
    }),
    user: async (a) => {
      const p = await s.profile.get(a);
      return { id: p.id, email: p.email, full_name: p.fullName };
    },
    api_key: byId(async (a, id) => {
      const k = await s.apiKeys.get(a, id);
      return { id: k.id, organization_id: k.organizationId, name: k.name, role: k.role, scopes: k.scopes, expires_at: k.expiresAt?.toISOString() ?? null, prefix: `op_${k.prefix}`, created_by: k.createdBy };
    }),
    // Names only: a secret's value never leaves the secret box.
    org_secret: byId(async (a, id) => without(toSecretJson(await s.orgSecrets.get(a, id)), 'used_by')),
    agent: byId(async (a, id) => without(toAgentJson(await s.agents.get(a, id), now()), 'status', 'last_seen_at', 'version', 'hostname')),
    heartbeat: byId(async (a, id) => {
      const h = await s.heartbeats.get(a, id);
      // Its key is the ping URL's secret: not kept, not even masked.
      return {
        id: h.id, organization_id: h.organizationId, service_id: h.serviceId, name: h.name, interval_seconds: h.intervalSeconds, schedule: h.schedule,
        timezone: h.schedule === null ? null : h.timezone, grace_seconds: h.graceSeconds, max_runtime_seconds: h.maxRuntimeSeconds,
      };
    }),
    ssl_certificate: byId(async (a, id) => without(toSslCertificateJson(await s.sslCertificates.get(a, id)), 'status', 'subject', 'issuer', 'valid_from', 'valid_to', 'days_remaining', 'last_checked_at', 'message')),
    report_settings: async (a) => toReportSettingsJson(await s.reportSettings.get(a)),
    sso_settings: async (a) => toSsoSettingsJson(await s.ssoSettings.get(a)),
  };
}
