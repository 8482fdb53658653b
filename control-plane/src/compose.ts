// The composition root: every repository and service of the control plane, wired once.
// No I/O happens here; control-plane.ts starts what needs starting.
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import { createSecretBox } from './crypto/secret-box.js';
import type { Database } from './db/database.js';
import { pooledSql } from './db/pooled-sql.js';
import { createLocalBus } from './cluster/cluster-bus.js';
import { createEventRelay, NO_RELAY } from './cluster/event-relay.js';
import { createFollowedOrganizations, NO_OTHER_FOLLOWERS } from './cluster/followed-organizations.js';
import { createParcels } from './cluster/parcels.js';
import { createPostgresBus } from './cluster/postgres-bus.js';
import { createReplicaLease, SOLE_LEASE_SECONDS } from './cluster/replica-lease.js';
import { createReplicaUpkeep } from './cluster/replica-upkeep.js';
import { replicate, type Replication } from './cluster/replication.js';
import { createTestRunRelay } from './cluster/test-run-relay.js';
import { createAgentAuthenticator } from './features/agents/agent-auth.js';
import { createAgentSessionsRepository } from './features/agents/agent-sessions.repository.js';
import { createAgentsRepository } from './features/agents/agents.repository.js';
import { createAgentsService } from './features/agents/agents.service.js';
import { createTestRunService } from './features/agents/test-runs.js';
import { createApiKeysRepository } from './features/api-keys/api-keys.repository.js';
import { createApiKeysService } from './features/api-keys/api-keys.service.js';
import { createVerifiedKeys } from './features/api-keys/verified-keys.js';
import { jwtOrApiKey } from './features/auth/credential-verifier.js';
import { createSessionLiveness } from './features/sessions/session-liveness.js';
import { createSessionsRepository } from './features/sessions/sessions.repository.js';
import { createSessionsService } from './features/sessions/sessions.service.js';
import { organizationEntry } from './features/sessions/organization-entry.js';
import { defaultWebDir } from './http/web-app.js';
import { createAssignmentHub } from './features/agents/assignment-hub.js';
import { createAlertEvaluator } from './features/alerting/alert-evaluator.js';
import { createDependencyHoldsRepository } from './features/alerting/dependency-holds.repository.js';
import { createAlertsRepository } from './features/alerting/alerts.repository.js';
import { createAlertsService } from './features/alerting/alerts.service.js';
import { createRuleCache } from './features/alerting/rule-cache.js';
import { createRulesRepository } from './features/alerting/rules.repository.js';
import { createRulesService } from './features/alerting/rules.service.js';
import { createAccountsRepository } from './features/auth/accounts.repository.js';
import { createAuthService } from './features/auth/auth.service.js';
import { createLoginLimiter } from './features/auth/login-limiter.js';
import { memoryRateLimiters, postgresRateLimiters } from './limits/rate-limiter.js';
import { sharedCounterLimiter } from './limits/shared-counter-limiter.js';
import { createPasswordHasher } from './features/auth/password-hasher.js';
import { createProfileRepository } from './features/auth/profile.repository.js';
import { createProfileService } from './features/auth/profile.service.js';
import { createTokenService } from './features/auth/token-service.js';
import { createCheckHistoryRepository } from './features/checks/check-history.repository.js';
import { createCheckResultsRepository } from './features/checks/check-results.repository.js';
import { createHistoryService } from './features/checks/history.service.js';
import { createIngestService } from './features/result-pipeline/ingest.js';
import { observedIngest } from './features/result-pipeline/observed-ingest.js';
import { evaluateAlerts } from './features/result-pipeline/steps/evaluate-alerts.js';
import { liveEvents } from './features/result-pipeline/steps/live-events.js';
import { planNotifications } from './features/result-pipeline/steps/plan-notifications.js';
import { silenceNotices } from './features/result-pipeline/steps/silence-notices.js';
import { storeResults } from './features/result-pipeline/steps/store-results.js';
import { createFirstTargets } from './features/alerting/first-targets.js';
import { reminders } from './features/alerting/reminders.js';
import { createRemindersRepository } from './features/alerting/reminders.repository.js';
import { createNoticeSilencer } from './features/silences/notice-silencer.js';
import { createSilenceApplier } from './features/silences/silence-applier.js';
import { silenceBoundaries } from './features/silences/silence-boundaries.js';
import { createSilencesRepository } from './features/silences/silences.repository.js';
import { createSilencesService } from './features/silences/silences.service.js';
import { createDueTimer } from './jobs/due-timer.js';
import { createAgentSightingsRepository } from './features/watchdog/agent-sightings.repository.js';
import { createAgentWatch } from './features/watchdog/agent-watch.js';
import { watchdog } from './features/watchdog/watchdog.js';
import { createWatchdogRepository } from './features/watchdog/watchdog.repository.js';
import { createPartitionKeeper } from './features/checks/partition-keeper.js';
import { createRollupBacklogRepository } from './features/checks/rollup-backlog.repository.js';
import { createRollupFolder } from './features/checks/rollup-folder.js';
import { settledHistory, settledOverview } from './features/checks/settled-rollups.js';
import { escalationSteps } from './features/escalation/escalation-job.js';
import { createHeartbeatsRepository } from './features/heartbeats/heartbeats.repository.js';
import { createHeartbeatsService } from './features/heartbeats/heartbeats.service.js';
import { createPeriodicJob } from './jobs/periodic-job.js';
import { createEscalationRepository } from './features/escalation/escalation.repository.js';
import { createEscalationService } from './features/escalation/escalation.service.js';
import { createMaintenanceRepository } from './features/maintenance/maintenance.repository.js';
import { createMaintenanceService } from './features/maintenance/maintenance.service.js';
import { createChannelsRepository } from './features/notifications/channels.repository.js';
import { createChannelsService } from './features/notifications/channels.service.js';
import { createDeliveriesRepository } from './features/notifications/deliveries.repository.js';
import { createDispatcher, DEFAULT_RETRY, type RetryPolicy } from './features/notifications/dispatcher.js';
import { createNotificationPlanner } from './features/notifications/notification-planner.js';
import { createSenders } from './features/notifications/senders/index.js';
import { observedSenders } from './features/notifications/senders/observed-senders.js';
import { templatedSenders } from './features/notifications/senders/templated-senders.js';
import { createMessageRenderer } from './features/notifications/message-renderer.js';
import { createTemplateEngine } from './features/notifications/template-engine.js';
import { createOrganizationAccess } from './features/organizations/organization-access.js';
import { createOrgSecretsRepository } from './features/org-secrets/org-secrets.repository.js';
import { createOrgSecretsService } from './features/org-secrets/org-secrets.service.js';
import { createSecretResolver } from './features/org-secrets/secret-resolver.js';
import { createOrganizationAdminRepository } from './features/organizations/organization-admin.repository.js';
import { createOrganizationService } from './features/organizations/organization.service.js';
import { createOrganizationsRepository } from './features/organizations/organizations.repository.js';
import { createReferences } from './features/organizations/references.js';
import { createEventBus } from './features/realtime/event-bus.js';
import { createServiceOverviewRepository } from './features/services/service-overview.repository.js';
import { createServicesRepository } from './features/services/services.repository.js';
import { createDependenciesRepository } from './features/services/dependencies.repository.js';
import { optionsForAgent } from './features/secrets/secret-options.js';
import { createServicesService } from './features/services/services.service.js';
import { createSslCertificatesRepository } from './features/ssl-certificates/ssl-certificates.repository.js';
import { createSslCertificatesService } from './features/ssl-certificates/ssl-certificates.service.js';
import { resealSecrets } from './features/secrets/reseal-secrets.js';
import { createSealedValuesRepository } from './features/secrets/sealed-values.repository.js';
import { createTeamsRepository } from './features/teams/teams.repository.js';
import { createTeamsService } from './features/teams/teams.service.js';
import { createStatusPagesRepository } from './features/status-pages/status-pages.repository.js';
import { createBadgesRepository } from './features/badges/badges.repository.js';
import { createBadgesService } from './features/badges/badges.service.js';
import { monthlyReports } from './features/reports/monthly-reports.js';
import { createReportSettingsRepository } from './features/reports/report-settings.repository.js';
import { createReportSettingsService } from './features/reports/report-settings.service.js';
import { createUptimeReportRepository } from './features/reports/uptime-report.repository.js';
import { createUptimeReportsService } from './features/reports/uptime-reports.service.js';
import { smtpTransport } from './features/notifications/senders/smtp-transport.js';
import { emailNotConfigured } from './features/notifications/senders/email.js';
import { createStatusPagesService } from './features/status-pages/status-pages.service.js';
import { createPageAccess } from './features/status-pages/page-access.js';
import { createIncidentsRepository } from './features/incidents/incidents.repository.js';
import { createIncidentsService } from './features/incidents/incidents.service.js';
import { maintenanceAnnouncements } from './features/maintenance/maintenance-announcements.js';
import { createAnnouncementsRepository } from './features/maintenance/maintenance-announcements.repository.js';
import { createSubscribersFeature } from './features/subscribers/subscribers-feature.js';
import { createSecondFactorsFeature } from './features/second-factors/second-factors-feature.js';
import { createInvitationsFeature } from './features/invitations/invitations-feature.js';
import { createPasswordResetFeature } from './features/password-reset/password-reset-feature.js';
import { createSsoFeature } from './features/sso/sso-feature.js';
import { createAgentGateway } from './grpc/agent-gateway.js';
import type { Logger } from './logger.js';
import { createControlPlaneMetrics } from './metrics/control-plane-metrics.js';
import { createScraper, metricsRoutes } from './metrics/metrics-endpoint.js';
import { createMetricsReadingsRepository } from './metrics/metrics-readings.repository.js';
import type { Secrets } from './secrets.js';
import { AGENT_VERSION as OUTPOST_VERSION } from '../../agent/src/version.js';
import { verifyAdminToken } from './features/backup/admin-token.js';
import { createBackupRepository } from './features/backup/backup.repository.js';
import { createBackupService } from './features/backup/backup.service.js';
import { createWsFeed } from './ws/ws-feed.js';
import { createAuditTrail } from './features/audit/audit-trail.js';
import { createAuditLogFeature } from './features/audit/audit-log-feature.js';
import { apiOperations } from './api-operations.js';

/** Partitions are made days ahead, so an hourly round is plenty. */
const RETENTION_INTERVAL_MS = 3_600_000;
/** The longest a job woken by due times sleeps: work made on another replica is found by then. */
const DUE_TIMER_MAX_WAIT_MS = 60_000;
/** The same on the embedded database, where no other replica makes work: a look now and then, in case. */
const SOLE_DUE_TIMER_MAX_WAIT_MS = 600_000;
/** Wrong passwords of a status page from one address, per window. */
const STATUS_PAGE_UNLOCK_LIMIT = { points: 10, windowSeconds: 900 };
/** The watchdog reads every checked service each round: in tests with short job intervals, at most once a second. */
const WATCHDOG_MIN_WAIT_MS = 1_000;

export interface ComposeOptions {
  clock: Clock;
  retry?: RetryPolicy;
  /** How often background jobs look for due work when nothing wakes them. */
  jobIntervalMs?: number;
}

export function compose(config: Config, db: Database, secrets: Secrets, logger: Logger, options: ComposeOptions) {
  const { clock } = options;
  const secretBox = createSecretBox(secrets.dataKeys, secrets.jwtSecret);
  const bus = createEventBus((err) => logger.error({ err }, 'event listener failed'));
  const sql = pooledSql(db.knex(), { prepare: !db.embedded });
  // The embedded database serves one process, so there are no other replicas to tell.
  const cluster = db.embedded || !config.databaseUrl
    ? createLocalBus()
    : createPostgresBus({ url: config.databaseUrl, query: sql.query, logger: logger.child({ component: 'cluster' }), othersAlive: () => lease.othersAlive() });
  const lease = createReplicaLease(sql.query, cluster.replicaId, () => cluster.publish({ k: 'replica', id: cluster.replicaId }), db.embedded ? { seconds: SOLE_LEASE_SECONDS, sole: true } : undefined);
  cluster.on('replica', () => lease.otherJoined());
  const followers = db.embedded ? NO_OTHER_FOLLOWERS : createFollowedOrganizations({ bus: cluster, query: sql.query, peers: lease.peers, logger: logger.child({ component: 'cluster' }) });
  // Bound below, once the parts it reaches exist; called only after start.
  let replication: Replication | undefined;
  const tokens = createTokenService(secrets.jwtSecret);
  const access = createOrganizationAccess(createOrganizationsRepository(db.em, sql));
  const hasher = createPasswordHasher();
  const audit = createAuditTrail(db.em);
  const verifiedKeys = createVerifiedKeys();
  const apiKeys = createApiKeysService(createApiKeysRepository(db.em), hasher, access, verifiedKeys, (id) => replication!.apiKeyRevoked(id), () => clock.now());
  const sessionsRepo = createSessionsRepository(db.em);
  const sessionLiveness = createSessionLiveness(sessionsRepo);
  const sessions = createSessionsService({
    sessions: sessionsRepo,
    tokens,
    ends: { sessionsEnded: (ids) => replication!.sessionsEnded(ids), userSessionsEnded: (userId) => replication!.userSessionsEnded(userId) },
    // The gates are made further down, with single sign-on and second factors; asked only once requests arrive.
    enter: (actor, organizationId, address) => enterOrganization(actor, organizationId, address),
  });
  const verifyCredential = jwtOrApiKey(tokens, apiKeys, sessionLiveness);
  const feed = createWsFeed({ verify: verifyCredential, access, bus, followers, logger });
  const metrics = createControlPlaneMetrics({
    readings: createMetricsReadingsRepository(sql.query),
    webSocketClients: feed.clients,
    poolUse: db.poolUse,
    // The ingest service is made further down, with these metrics as its observer.
    ingestWaiting: () => ingest.waiting(),
    settings: config.metrics,
    logger: logger.child({ component: 'metrics' }),
  });
  const scrapeMetrics = createScraper(metrics.registry, config.metrics.token);
  const references = createReferences(db.em);
  const sharedLimiters = postgresRateLimiters(db.knex());

  const servicesRepo = createServicesRepository(db.em, sql);
  const orgSecretsRepo = createOrgSecretsRepository(db.em);
  const secretResolver = createSecretResolver(orgSecretsRepo, secretBox, logger.child({ component: 'secrets' }));
  const agentSessions = createAgentSessionsRepository(sql.query, cluster.replicaId);
  const hub = createAssignmentHub({
    sessions: agentSessions,
    announce: (location) => cluster.publish({ k: 'placement', location }),
    listForLocation: servicesRepo.listForLocation,
    toAssignments: async (list) => {
      // Secret options opened first: a {{secrets.NAME}} there is stored as written, not sealed.
      const options = await secretResolver.resolveForAgents(list.map((s) => ({ organizationId: s.organizationId, options: optionsForAgent(s.options, secretBox) })));
      return list.map((s, i) => ({
        serviceId: s.id,
        version: s.configVersion,
        checkType: s.checkType,
        endpoint: s.endpoint,
        intervalSeconds: s.checkIntervalSeconds,
        timeoutSeconds: s.timeoutSeconds,
        options: options[i]!,
      }));
    },
    logger,
  });

  const deliveries = createDeliveriesRepository(db.em);
  const messages = createMessageRenderer({
    engine: createTemplateEngine(),
    publicUrl: config.notifications.publicUrl,
    clock,
    logger: logger.child({ component: 'templates' }),
    organizationName: createChannelsRepository(db.em).organizationName,
  });
  const dispatcher = createDispatcher({
    deliveries,
    senders: observedSenders(templatedSenders(createSenders(config.notifications), messages), metrics.deliveries),
    secrets: secretBox,
    clock,
    logger: logger.child({ component: 'dispatcher' }),
    retry: options.retry ?? DEFAULT_RETRY,
    maxWaitMs: options.jobIntervalMs ?? (db.embedded ? SOLE_DUE_TIMER_MAX_WAIT_MS : DUE_TIMER_MAX_WAIT_MS),
  });
  const wakeDispatcher = () => dispatcher.wake();
  const channelsRepo = createChannelsRepository(db.em);
  const teamsRepo = createTeamsRepository(db.em, db.transaction);
  const planner = createNotificationPlanner({ deliveries, channels: channelsRepo, teams: teamsRepo, clock });
  const alertsRepo = createAlertsRepository(db.em);
  const rulesRepo = createRulesRepository(db.em);
  const ruleCache = createRuleCache();
  const maintenanceRepo = createMaintenanceRepository(db.em);
  const escalationRepo = createEscalationRepository(db.em);

  const firstTargets = createFirstTargets(escalationRepo, (at) => escalationJob.nudge(at));
  const evaluator = createAlertEvaluator({ rules: rulesRepo, cache: ruleCache, alerts: alertsRepo, maintenance: maintenanceRepo, holds: createDependencyHoldsRepository(), firstTargets, clock });
  // Jobs woken by due times sleep at most this long: a minute in production, less in tests that move the clock.
  const dueTimers = { clock, maxWaitMs: options.jobIntervalMs ?? (db.embedded ? SOLE_DUE_TIMER_MAX_WAIT_MS : DUE_TIMER_MAX_WAIT_MS), logger };
  const reminderJob = createDueTimer('alert reminders', reminders({ repository: createRemindersRepository(db.em), alerts: alertsRepo, planner, transaction: db.transaction, wakeDispatcher, clock }), dueTimers);
  const silencesRepo = createSilencesRepository(db.em);
  const silenceApplier = createSilenceApplier({ silences: silencesRepo, alerts: alertsRepo, rules: rulesRepo, ruleCache, firstTargets, planner, clock });
  const silenceJob = createDueTimer('silence starts and ends', silenceBoundaries({ silences: silencesRepo, applier: silenceApplier, transaction: db.transaction, wakeDispatcher, clock }), dueTimers);
  const escalationJob = createDueTimer('escalation steps', escalationSteps({ escalation: escalationRepo, alerts: alertsRepo, planner, clock, wakeDispatcher }), dueTimers);

  const partitions = createPartitionKeeper(db.em, clock, config.checkRetentionDays);
  const retentionJob = createPeriodicJob('check retention', RETENTION_INTERVAL_MS, partitions.maintain, logger);
  const rollups = createRollupFolder({ transaction: db.transaction, backlog: createRollupBacklogRepository(db.em), partitions, logger: logger.child({ component: 'rollups' }) });
  // Woken by ingest; a round that stopped at its limit goes on at once.
  const rollupJob = createDueTimer('rollup folding', { run: rollups.foldPending, nextDue: async () => (rollups.pendingLeft() ? clock.now() : null) }, dueTimers);
  const relay = db.embedded ? NO_RELAY : createEventRelay({ bus: cluster, query: sql.query, events: bus, follows: feed.follows, othersAlive: lease.othersAlive, followers, logger });
  const ingest = createIngestService({
    transaction: db.transaction,
    steps: [
      storeResults(createCheckResultsRepository(), { changes: config.alerting.flapChanges, windowMs: config.alerting.flapWindowMs }),
      evaluateAlerts(evaluator),
      silenceNotices(createNoticeSilencer(silencesRepo, clock)),
      planNotifications(planner),
      liveEvents(relay, feed.follows),
    ],
    partitions,
    events: bus,
    wakeDispatcher,
    remindersDue: reminderJob.nudge,
    backlogAdded: () => rollupJob.nudge(rollups.foldDueAfterAppend(clock.now())),
    observer: metrics.ingest,
    clock,
    logger: logger.child({ component: 'ingest' }),
  });
  const agentSightings = createAgentSightingsRepository(db.em);
  const watchdogJob = createDueTimer(
    'silent agents and stale services',
    watchdog({
      sightings: agentSightings,
      repository: createWatchdogRepository(db.em),
      alerts: alertsRepo,
      rules: rulesRepo,
      ruleCache,
      maintenance: maintenanceRepo,
      firstTargets,
      silencer: createNoticeSilencer(silencesRepo, clock),
      planner,
      relay,
      events: bus,
      transaction: db.transaction,
      wakeDispatcher,
      remindersDue: reminderJob.nudge,
      clock,
      offlineMs: config.alerting.agentOfflineMs,
      startedAt: clock.now(),
    }),
    { ...dueTimers, maxWaitMs: Math.max(dueTimers.maxWaitMs, WATCHDOG_MIN_WAIT_MS) },
  );
  const heartbeats = createHeartbeatsService({ heartbeats: createHeartbeatsRepository(db.em), services: servicesRepo, access, ingest, clock, deadlineSet: (at) => heartbeatJob.nudge(at) });
  const heartbeatJob = createDueTimer('heartbeat deadlines', { run: heartbeats.recordMissed, nextDue: heartbeats.nextDeadline }, dueTimers);
  const agentsRepo = createAgentsRepository(db.em);
  const gateway = createAgentGateway({
    auth: createAgentAuthenticator(secrets.agentToken, agentsRepo),
    hub,
    presence: {
      connected: agentsRepo.markConnected,
      seen: agentsRepo.markSeen,
      disconnected: agentsRepo.markDisconnected,
    },
    ingest: observedIngest(ingest, metrics.ingest),
    watch: createAgentWatch({ sightings: agentSightings, clock, offlineMs: config.alerting.agentOfflineMs, nudge: watchdogJob.nudge, logger }),
    logger,
  });
  replication = replicate({
    bus: cluster,
    hub,
    peers: lease.peers,
    findService: servicesRepo.findById,
    findServices: servicesRepo.findByIds,
    ruleCache,
    verifiedKeys,
    sessionLiveness,
    disconnectAgent: (agentId) => gateway.disconnectAgent(agentId),
    logger,
  });
  const serviceChanges = replication.serviceChanges;
  const testRuns = createTestRunService({
    access,
    agents: agentSessions,
    replicaId: cluster.replicaId,
    local: gateway.runTest,
    remote: createTestRunRelay({
      parcels: createParcels(cluster, secretBox, logger.child({ component: 'cluster' })),
      runLocally: gateway.runTest,
      logger: logger.child({ component: 'cluster' }),
    }),
    secrets: secretBox,
    secretReferences: secretResolver,
  });
  const upkeep = createReplicaUpkeep(lease, hub, relay, followers, logger);

  const historyRepo = settledHistory(createCheckHistoryRepository(db.em), rollups.settle);
  const uptimeReports = createUptimeReportsService({ reports: createUptimeReportRepository(db.em), access, settle: rollups.settle, minuteRollupsSince: partitions.minuteRollupsSince, clock });
  const reportSettingsRepo = createReportSettingsRepository(db.em);
  const smtp = config.notifications.smtp && smtpTransport(config.notifications.smtp);
  const monthlyReportJob = createDueTimer('monthly uptime reports', monthlyReports({ settings: reportSettingsRepo, reports: uptimeReports, mailer: smtp, clock, logger }), dueTimers);
  const subscribers = createSubscribersFeature({
    em: db.em, transaction: db.transaction, notifications: config.notifications, jwtSecret: secrets.jwtSecret,
    limiters: sharedLimiters, limits: { perAddress: config.limits.subscriptions, perEmail: config.limits.subscriptionsPerEmail },
    // The status pages service is made with appDeps below; asked only once requests arrive.
    visiblePage: (slug, visitor) => appDeps.statusPages.visiblePage(slug, visitor),
    access, retry: options.retry ?? DEFAULT_RETRY, clock, maxWaitMs: dueTimers.maxWaitMs, logger,
  });
  const subscriberNotifier = subscribers.notifier;
  const findUserByEmail = createAccountsRepository(db.em).findUserByEmail;
  const invitations = createInvitationsFeature({
    em: db.em, transaction: db.transaction, notifications: config.notifications, mailer: smtp, access, findUserByEmail, hasher,
    loginLimiter: createLoginLimiter(sharedLimiters, { perAddressAndAccount: config.limits.loginFailures, perAddress: config.limits.loginAddressFailures }),
    sessions, audit, clock, logger,
    // Made further down; asked only once requests arrive.
    ssoGate: { assertPasswordSignIn: (user, organizationId, address) => sso.gate.assertPasswordSignIn(user, organizationId, address) },
    secondFactor: { afterFirstFactor: (user, organizationId, method) => secondFactors.signIn.afterFirstFactor(user, organizationId, method) },
  });
  const passwordResets = createPasswordResetFeature({
    em: db.em, transaction: db.transaction, notifications: config.notifications, mailer: smtp, findUserByEmail, hasher, sessions, audit,
    limiters: sharedLimiters, limits: { perAddress: config.limits.passwordResets, perEmail: config.limits.passwordResetsPerEmail }, clock, logger,
  });
  const sso = createSsoFeature({ em: db.em, transaction: db.transaction, box: secretBox, access, sessions, audit, publicUrl: config.notifications.publicUrl, clock });
  const announcementsRepo = createAnnouncementsRepository(db.em);
  const announcementJob = createDueTimer(
    'maintenance announcements',
    maintenanceAnnouncements({ windows: maintenanceRepo, announcements: announcementsRepo, subscribers: subscriberNotifier, transaction: db.transaction, clock }),
    dueTimers,
  );
  const statusPagesRepo = createStatusPagesRepository(db.em, db.transaction);
  const incidentsRepo = createIncidentsRepository(db.em);
  const pageAccess = createPageAccess({
    signingKey: secrets.jwtSecret,
    verifyCredential,
    isMember: (actor, organizationId) => access.roleIn(actor, organizationId).then(() => true, () => false),
    now: () => clock.now(),
  });
  // The services it snapshots are appDeps'; asked only once requests arrive.
  const auditLog = createAuditLogFeature({ em: db.em, trail: audit, access, operations: apiOperations, services: () => appDeps, clock, maxWaitMs: dueTimers.maxWaitMs, logger });
  const secondFactors = createSecondFactorsFeature({
    em: db.em, transaction: db.transaction, box: secretBox, hasher, passwordHash: createProfileRepository(db.em).passwordHash, sessions, ssoGate: sso.gate, access, audit,
    limiters: sharedLimiters, failuresPerAddress: config.limits.loginAddressFailures, publicUrl: config.configuredPublicUrl, clock,
  });
  const enterOrganization = organizationEntry(sso.gate.assertSwitch, (actor, organizationId) => secondFactors.signIn.assertMayEnter(actor, organizationId));
  const appDeps = {
    logger,
    secondFactors,
    audit,
    auditLog,
    sessions,
    verifyCredential,
    apiKeys,
    organization: createOrganizationService(createOrganizationAdminRepository(db.em), access, tokens, enterOrganization),
    profile: createProfileService(createProfileRepository(db.em), hasher, sessions),
    heartbeats,
    sslCertificates: createSslCertificatesService({ certificates: createSslCertificatesRepository(db.em), services: servicesRepo, access, listener: serviceChanges, clock }),
    clock,
    auth: createAuthService({
      accounts: createAccountsRepository(db.em),
      hasher,
      sessions,
      limiter: createLoginLimiter(sharedLimiters, { perAddressAndAccount: config.limits.loginFailures, perAddress: config.limits.loginAddressFailures }),
      registrations: config.limits.registrations && sharedLimiters('registrations', config.limits.registrations),
      defaultPlan: config.defaultPlan,
      ssoGate: sso.gate,
      secondFactor: secondFactors.signIn,
    }),
    testRuns,
    services: createServicesService({ services: servicesRepo, dependencies: createDependenciesRepository(sql), overview: settledOverview(createServiceOverviewRepository(db.em), rollups.settle), access, secrets: secretBox, secretReferences: secretResolver, listener: serviceChanges, clock }),
    history: createHistoryService(historyRepo, () => clock.now()),
    teams: createTeamsService(teamsRepo, access),
    badges: createBadgesService({ badges: createBadgesRepository(db.em), history: historyRepo, access, clock, publicUrl: config.notifications.publicUrl }),
    uptimeReports,
    reportSettings: createReportSettingsService({ settings: reportSettingsRepo, access, clock, emailUnavailable: smtp ? undefined : emailNotConfigured(config.notifications) }),
    statusPages: createStatusPagesService({
      pages: statusPagesRepo, history: historyRepo, incidents: incidentsRepo, maintenance: maintenanceRepo, endedMaintenance: announcementsRepo.ended, access, pageAccess, hasher,
      unlockLimiter: sharedLimiters('status-page-unlock', STATUS_PAGE_UNLOCK_LIMIT), references, clock,
    }),
    incidents: createIncidentsService({ incidents: incidentsRepo, pages: statusPagesRepo, access, references, transaction: db.transaction, subscribers: subscriberNotifier, clock }),
    subscribers: subscribers.service,
    invitations: invitations.service,
    invitationAcceptance: invitations.acceptance,
    passwordResets: passwordResets.service,
    ssoSettings: sso.settings,
    ssoSignIn: sso.signIn,
    rules: createRulesService({ rules: rulesRepo, access, rulesChanged: replication.rulesChanged, references }),
    alerts: createAlertsService({ alerts: alertsRepo, deliveries, escalation: escalationRepo, planner, access, transaction: db.transaction, events: bus, relay, wakeDispatcher, clock }),
    channels: createChannelsService({ channels: channelsRepo, access, secrets: secretBox, planner, transaction: db.transaction, wakeDispatcher, settings: config.notifications, messages }),
    maintenance: createMaintenanceService(maintenanceRepo, access, references, () => announcementJob.nudge(clock.now())),
    silences: createSilencesService({ silences: silencesRepo, access, transaction: db.transaction, applier: silenceApplier, boundaryAt: silenceJob.nudge, wakeDispatcher, clock }),
    orgSecrets: createOrgSecretsService({ secrets: orgSecretsRepo, access, box: secretBox, findService: servicesRepo.findById, listener: serviceChanges }),
    escalation: createEscalationService(escalationRepo, access, references),
    agents: createAgentsService(agentsRepo, access, (agentId) => {
      // A removed agent's alert resolves at the watchdog's next round, which starts now.
      watchdogJob.nudge(clock.now());
      return replication!.agentRevoked(agentId);
    }),
    backups: createBackupService({ repository: createBackupRepository(db.em), databaseUrl: db.url, embedded: db.embedded, version: OUTPOST_VERSION, logger: logger.child({ component: 'backup' }) }),
    isAdminToken: (token: string) => verifyAdminToken(token, secrets.jwtSecret),
    // grpcPort becomes the bound port once the gRPC server listens (before any request).
    agentInstall: { publicGrpcAddress: config.publicGrpcAddress, grpcPort: config.grpcPort, tls: config.grpcTls !== undefined },
    feed,
    pingDatabase: db.ping,
    trustedProxies: config.http.trustedProxies,
    webDir: config.webDir ?? defaultWebDir(),
    // Shared by the replicas through counts batched to PostgreSQL (a write per request would
    // cost more than the requests it limits); one process counts in memory, exactly.
    apiLimiter:
      config.limits.api &&
      (db.embedded ? memoryRateLimiters()('api', config.limits.api) : sharedCounterLimiter(sql.query, 'api-shared', config.limits.api, logger.child({ component: 'rate-limit' }))),
    requestObserver: metrics.requests,
    metricsRoutes: config.metrics.address ? undefined : metricsRoutes(scrapeMetrics),
  };

  /** Secrets of the first format depend on the JWT secret; moved onto the data key at start. */
  const resealLegacySecrets = () => resealSecrets(createSealedValuesRepository(db.em), secretBox, { onlyLegacy: true });

  return {
    appDeps, gateway, hub, cluster, lease, followers, upkeep, dispatcher, monthlyReportJob, announcementJob, escalationJob, heartbeatJob, retentionJob, rollups, rollupJob, reminderJob, silenceJob, watchdogJob,
    resealLegacySecrets, scrapeMetrics, subscriberJob: subscribers.job, auditLogJob: auditLog.job, passwordResets,
  };
}
