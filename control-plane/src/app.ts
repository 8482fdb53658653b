// The composition of the HTTP application: middleware order and routes, no I/O.
import Router from '@koa/router';
import Koa from 'koa';
import compress from 'koa-compress';
import { constants as zlib } from 'node:zlib';
import websockify from 'koa-websocket';
import { authRoutes } from './features/auth/auth.routes.js';
import { refreshRoutes, sessionsRoutes } from './features/sessions/sessions.routes.js';
import { mfaSignInRoutes } from './features/second-factors/mfa-sign-in.routes.js';
import { organizationSecurityRoutes } from './features/second-factors/organization-security.routes.js';
import { secondFactorsRoutes } from './features/second-factors/second-factors.routes.js';
import type { SecondFactorsFeature } from './features/second-factors/second-factors-feature.js';
import type { SessionsService } from './features/sessions/sessions.service.js';
import type { AuthService } from './features/auth/auth.service.js';
import { historyRoutes, metricsOverviewRoutes } from './features/checks/history.routes.js';
import type { HistoryService } from './features/checks/history.service.js';
import { alertsRoutes } from './features/alerting/alerts.routes.js';
import type { AlertsService } from './features/alerting/alerts.service.js';
import { rulesRoutes } from './features/alerting/rules.routes.js';
import type { RulesService } from './features/alerting/rules.service.js';
import { escalationRoutes } from './features/escalation/escalation.routes.js';
import type { EscalationService } from './features/escalation/escalation.service.js';
import { maintenanceRoutes } from './features/maintenance/maintenance.routes.js';
import { silenceRoutes } from './features/silences/silences.routes.js';
import type { SilencesService } from './features/silences/silences.service.js';
import type { MaintenanceService } from './features/maintenance/maintenance.service.js';
import { orgSecretsRoutes } from './features/org-secrets/org-secrets.routes.js';
import type { OrgSecretsService } from './features/org-secrets/org-secrets.service.js';
import { channelsRoutes } from './features/notifications/channels.routes.js';
import type { ChannelsService } from './features/notifications/channels.service.js';
import type { Clock } from './clock.js';
import { agentsRoutes } from './features/agents/agents.routes.js';
import type { AgentInstallSettings } from './features/agents/install-commands.js';
import type { AgentsService } from './features/agents/agents.service.js';
import type { TestRunService } from './features/agents/test-runs.js';
import { healthRoutes } from './features/health/health.routes.js';
import { servicesRoutes } from './features/services/services.routes.js';
import type { ServicesService } from './features/services/services.service.js';
import { apiRateLimit } from './http/api-rate-limit.js';
import { authenticate } from './http/authenticate.js';
import { apiKeyScopes } from './http/api-key-scopes.js';
import type { CredentialVerifier } from './features/auth/credential-verifier.js';
import { clientAddress } from './http/client-address.js';
import type { RateLimiter } from './limits/rate-limiter.js';
import { apiKeysRoutes } from './features/api-keys/api-keys.routes.js';
import { organizationRoutes } from './features/organizations/organization.routes.js';
import { profileRoutes } from './features/auth/profile.routes.js';
import { heartbeatPingRoutes, heartbeatsRoutes } from './features/heartbeats/heartbeats.routes.js';
import { publicStatusPageRoutes, statusPagesRoutes } from './features/status-pages/status-pages.routes.js';
import { statusSite } from './features/status-pages/status-site.js';
import { badgeTokenRoutes, publicBadgeRoutes } from './features/badges/badges.routes.js';
import type { BadgesService } from './features/badges/badges.service.js';
import { reportsRoutes } from './features/reports/reports.routes.js';
import type { ReportSettingsService } from './features/reports/report-settings.service.js';
import type { UptimeReportsService } from './features/reports/uptime-reports.service.js';
import type { StatusPagesService } from './features/status-pages/status-pages.service.js';
import { incidentsRoutes } from './features/incidents/incidents.routes.js';
import type { IncidentsService } from './features/incidents/incidents.service.js';
import { publicSubscriptionRoutes, subscribersRoutes } from './features/subscribers/subscribers.routes.js';
import type { SubscribersService } from './features/subscribers/subscribers.service.js';
import { invitationsRoutes, publicInvitationRoutes } from './features/invitations/invitations.routes.js';
import type { InvitationAcceptance } from './features/invitations/invitation-acceptance.js';
import type { InvitationsService } from './features/invitations/invitations.service.js';
import { passwordResetRoutes } from './features/password-reset/password-reset.routes.js';
import type { PasswordResetService } from './features/password-reset/password-reset.service.js';
import { ssoSettingsRoutes, ssoSignInRoutes } from './features/sso/sso.routes.js';
import type { SsoSettingsService } from './features/sso/sso-settings.service.js';
import type { SsoSignInService } from './features/sso/sso-sign-in.service.js';
import { teamsRoutes } from './features/teams/teams.routes.js';
import type { TeamsService } from './features/teams/teams.service.js';
import type { HeartbeatsService } from './features/heartbeats/heartbeats.service.js';
import { sslCertificatesRoutes } from './features/ssl-certificates/ssl-certificates.routes.js';
import type { SslCertificatesService } from './features/ssl-certificates/ssl-certificates.service.js';
import type { ProfileService } from './features/auth/profile.service.js';
import type { OrganizationService } from './features/organizations/organization.service.js';
import type { ApiKeysService } from './features/api-keys/api-keys.service.js';
import { errorMiddleware } from './http/error-middleware.js';
import { jsonBody } from './http/json-body.js';
import { jsonResponse } from './http/json-response.js';
import { storableInput } from './http/storable-input.js';
import { requestContext } from './http/request-context.js';
import type { RequestObserver } from './http/request-metrics.js';
import { webApp } from './http/web-app.js';
import { apiOperations } from './api-operations.js';
import { backupRoutes } from './features/backup/backup.routes.js';
import type { BackupService } from './features/backup/backup.service.js';
import { docsPage } from './http/openapi/docs-page.js';
import { openApiRoutes } from './http/openapi/openapi-routes.js';
import type { Logger } from './logger.js';
import type { AuditTrail } from './features/audit/audit-trail.js';
import type { AuditLogFeature } from './features/audit/audit-log-feature.js';
import { auditLogRoutes } from './features/audit/audit-log.routes.js';
import type { WsFeed } from './ws/ws-feed.js';

export interface AppDeps {
  logger: Logger;
  /** Who changed what: written by the audit middleware and by features with changes outside REST CRUD. */
  audit: AuditTrail;
  /** GET /audit-log, and the middleware that records changes and sign-ins. */
  auditLog: AuditLogFeature;
  verifyCredential: CredentialVerifier;
  sessions: SessionsService;
  /** TOTP, recovery codes and passkeys; the sign-in's second step; the organization's rule. */
  secondFactors: SecondFactorsFeature;
  apiKeys: ApiKeysService;
  organization: OrganizationService;
  profile: ProfileService;
  heartbeats: HeartbeatsService;
  sslCertificates: SslCertificatesService;
  statusPages: StatusPagesService;
  badges: BadgesService;
  uptimeReports: UptimeReportsService;
  reportSettings: ReportSettingsService;
  incidents: IncidentsService;
  subscribers: SubscribersService;
  invitations: InvitationsService;
  /** The invited person's side of invitations (public). */
  invitationAcceptance: InvitationAcceptance;
  passwordResets: PasswordResetService;
  /** An organization's single sign-on settings (admins) and the browser's sign-in through it (public). */
  ssoSettings: SsoSettingsService;
  ssoSignIn: SsoSignInService;
  teams: TeamsService;
  auth: AuthService;
  services: ServicesService;
  /** Runs an unsaved service's check once on an agent (POST /services/test). */
  testRuns: TestRunService;
  history: HistoryService;
  rules: RulesService;
  alerts: AlertsService;
  channels: ChannelsService;
  maintenance: MaintenanceService;
  silences: SilencesService;
  orgSecrets: OrgSecretsService;
  escalation: EscalationService;
  agents: AgentsService;
  /** Whole-installation backups (POST /backup). */
  backups: BackupService;
  /** Whether a token is `npm run admin -- backup`'s (it can read the JWT secret). */
  isAdminToken: (token: string) => boolean;
  /** What the install commands answered with an agent's token need (gRPC address, TLS). */
  agentInstall: AgentInstallSettings;
  clock: Clock;
  feed: WsFeed;
  pingDatabase: () => Promise<void>;
  trustedProxies: readonly string[];
  /** The built dashboard, served at every path outside /api. */
  webDir: string;
  /** Requests per credential; absent: no limit. */
  apiLimiter: RateLimiter | undefined;
  /** Told the route, status and duration of every request. */
  requestObserver: RequestObserver;
  /** GET /metrics on this port; absent when it has a listen address of its own. */
  metricsRoutes: Router | undefined;
}

/** Every route under /api/v1; each one has its operation in api-operations.ts. */
export function createApiRouter(deps: AppDeps): Router {
  const api = new Router({ prefix: '/api/v1' });
  const publicRoutes = [healthRoutes(deps.pingDatabase), openApiRoutes(apiOperations), authRoutes(deps.auth), mfaSignInRoutes(deps.secondFactors.signIn, deps.secondFactors.relyingPartyOf), refreshRoutes(deps.sessions), heartbeatPingRoutes(deps.heartbeats), publicStatusPageRoutes(deps.statusPages), publicSubscriptionRoutes(deps.subscribers), publicInvitationRoutes(deps.invitationAcceptance), passwordResetRoutes(deps.passwordResets), ssoSignInRoutes(deps.ssoSignIn), publicBadgeRoutes(deps.badges), backupRoutes(deps.backups, deps.verifyCredential, deps.isAdminToken)];
  // No allowedMethods() per router: nested routes are copied into this one, so the single
  // api.allowedMethods() of createApp answers 405/501 from the same matched routes, while each
  // router's own would be one more layer on every request (22 of them cost a tenth of a cheap GET).
  // Sign-ins, failed ones and registrations: around the public auth routes below.
  api.use(deps.auditLog.signIns);
  for (const r of publicRoutes) api.use(r.routes());

  const protectedRoutes = [
    servicesRoutes(deps.services, deps.testRuns),
    historyRoutes(deps.services, deps.history),
    metricsOverviewRoutes(deps.services, deps.history),
    rulesRoutes(deps.rules),
    alertsRoutes(deps.alerts),
    channelsRoutes(deps.channels),
    maintenanceRoutes(deps.maintenance, deps.clock),
    silenceRoutes(deps.silences, deps.clock),
    orgSecretsRoutes(deps.orgSecrets),
    escalationRoutes(deps.escalation),
    agentsRoutes(deps.agents, deps.clock, deps.agentInstall),
    apiKeysRoutes(deps.apiKeys),
    ...organizationRoutes(deps.organization),
    profileRoutes(deps.profile),
    sessionsRoutes(deps.sessions),
    secondFactorsRoutes(deps.secondFactors.service, deps.secondFactors.relyingPartyOf),
    organizationSecurityRoutes(deps.secondFactors.organizationSecurity),
    heartbeatsRoutes(deps.heartbeats),
    sslCertificatesRoutes(deps.sslCertificates),
    statusPagesRoutes(deps.statusPages),
    incidentsRoutes(deps.incidents),
    subscribersRoutes(deps.subscribers),
    invitationsRoutes(deps.invitations),
    ssoSettingsRoutes(deps.ssoSettings),
    teamsRoutes(deps.teams),
    badgeTokenRoutes(deps.badges),
    reportsRoutes(deps.uptimeReports, deps.reportSettings),
    auditLogRoutes(deps.auditLog.service),
  ];
  const guarded = new Router();
  guarded.use(authenticate(deps.verifyCredential));
  guarded.use(apiKeyScopes);
  if (deps.apiLimiter) guarded.use(apiRateLimit(deps.apiLimiter));
  guarded.use(deps.auditLog.changes);
  for (const r of protectedRoutes) guarded.use(r.routes());
  api.use(guarded.routes());
  return api;
}

export function createApp(deps: AppDeps) {
  // The WebSocket server is attached to the HTTP server by the caller (control-plane.ts).
  const app = websockify(new Koa({ proxy: false }));
  const api = createApiRouter(deps);

  app.use(requestContext(deps.logger, deps.requestObserver));
  app.use(errorMiddleware);
  // Large JSON answers (2,000 services' overview is ~1 MB) travel gzipped: level 1 costs a few
  // ms per MB and saves ~90% on the wire. Dashboard files arrive already compressed.
  app.use(compress({ threshold: 16 * 1024, gzip: { level: zlib.Z_BEST_SPEED }, br: false, deflate: false }));
  app.use(jsonResponse);
  app.use(clientAddress(deps.trustedProxies));
  app.use(jsonBody);
  app.use(storableInput);
  app.use(docsPage());
  // Before the dashboard, which answers every other GET outside /api.
  if (deps.metricsRoutes) app.use(deps.metricsRoutes.routes());
  const site = statusSite(deps.statusPages);
  app.use(site.middleware);
  app.use(webApp(deps.webDir, site.shownPage));
  app.use(api.routes());
  app.use(api.allowedMethods());

  // What reaches here is a connection that failed under a response (a client gone, a request
  // timeout); Koa would print it to stderr.
  app.on('error', (err) => deps.logger.debug({ err }, 'connection failed during a response'));
  app.ws.use((ctx) => deps.feed.accept(ctx as unknown as Parameters<WsFeed['accept']>[0]));
  return app;
}
