// Starts the whole control plane from its configuration: database, services, the HTTP API
// with the WebSocket feed, the agents' gRPC endpoint, background jobs and the embedded agent.
import type { Server } from 'node:http';
import { createApp } from './app.js';
import { systemClock, type Clock } from './clock.js';
import { compose } from './compose.js';
import type { Config } from './config.js';
import { openDatabase } from './db/database.js';
import { writeRunningMarker } from './features/backup/running-marker.js';
import type { RetryPolicy } from './features/notifications/dispatcher.js';
import { startGrpcServer } from './grpc/grpc-server.js';
import { closeHttpServer, createHttpServer } from './http/http-server.js';
import type { Logger } from './logger.js';
import { startMetricsServer } from './metrics/metrics-endpoint.js';
import { resolveSecrets } from './secrets.js';

export interface RunningControlPlane {
  httpPort: number;
  grpcPort: number;
  /** The port of METRICS_ADDR when set. */
  metricsPort: number | undefined;
  agentToken: string;
  /** This replica's id among the replicas on one database. */
  replicaId: string;
  /** Runs due escalation steps now (tests move the clock first). */
  runEscalations(): Promise<number>;
  /** Sends the reminders due now (tests move the clock first). */
  runReminders(): Promise<number>;
  /** Applies the silences starting or ending now (tests move the clock first). */
  runSilenceBoundaries(): Promise<number>;
  /** Tells status page subscribers of maintenance that was announced, started or ended; answers how many notices. */
  runMaintenanceAnnouncements(): Promise<number>;
  /** Runs one round of the status page subscribers' outbox now; answers how many deliveries it tried. */
  runSubscriberDeliveries(): Promise<number>;
  /** Runs one round of the watchdog of silent agents and stale services now (tests move the clock first). */
  runWatchdog(): Promise<number>;
  /** Sends the monthly uptime reports due now (tests move the clock first). */
  runMonthlyReports(): Promise<number>;
  /** Deletes the audit log rows past their retention now (once a day of the clock, as the job does). */
  runAuditRetention(): Promise<number>;
  /** Runs one round of heartbeat deadlines now (tests move the clock first). */
  runHeartbeatDeadlines(): Promise<number>;
  /** Runs one round of partition upkeep and retention now (tests). */
  runRetention(): Promise<number>;
  /** Folds the whole rollup backlog now, as a read of rollups does first (tests that read the tables). */
  settleRollups(): Promise<void>;
  /** Graceful: stop accepting, finish requests and ingestion, close streams and database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Keep the embedded database in memory instead of DATA_DIR (tests). */
  inMemoryDatabase?: boolean;
  clock?: Clock;
  retry?: RetryPolicy;
  jobIntervalMs?: number;
}

export async function startControlPlane(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningControlPlane> {
  const secrets = resolveSecrets(config.dataDir, { jwtSecret: config.jwtSecret, agentToken: config.agentToken, dataKeys: config.dataEncryptionKeys });
  const db = await openDatabase({
    url: config.databaseUrl,
    embeddedDataDir: options.inMemoryDatabase ? null : config.dataDir,
    poolSize: config.databasePoolSize,
    logger,
  });
  const parts = compose(config, db, secrets, logger, { clock: options.clock ?? systemClock, retry: options.retry, jobIntervalMs: options.jobIntervalMs });
  const app = createApp(parts.appDeps);
  const legacy = await parts.resealLegacySecrets();
  if (legacy.resealed + legacy.unreadable > 0) logger.info(legacy, 'moved stored secrets of the first format onto the data key');
  // Today's partitions exist before the first result arrives; then hourly.
  await parts.retentionJob.runOnce();
  parts.retentionJob.start();
  // Listening to the other replicas, and holding a lease, before the first agent arrives.
  await parts.cluster.start();
  await parts.lease.join();
  await parts.followers.refresh();
  parts.upkeep.start();

  const grpc = await startGrpcServer(parts.gateway, config.host, config.grpcPort, config.grpcTls);
  parts.appDeps.agentInstall.grpcPort = grpc.port;
  const http: Server = createHttpServer(app.callback(), config.http);
  app.ws.listen({ ...parts.appDeps.feed.serverOptions, server: http });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.port, config.host, () => resolve());
  });
  const httpPort = (http.address() as { port: number }).port;
  const removeMarker = db.embedded && !options.inMemoryDatabase ? writeRunningMarker(config.dataDir, config.host, httpPort) : undefined;
  const metricsServer = config.metrics.address ? await startMetricsServer(parts.scrapeMetrics, config.metrics.address, config.http) : undefined;
  parts.dispatcher.start();
  parts.escalationJob.start();
  parts.heartbeatJob.start();
  parts.reminderJob.start();
  parts.silenceJob.start();
  parts.announcementJob.start();
  parts.subscriberJob.start();
  parts.watchdogJob.start();
  parts.monthlyReportJob.start();
  parts.auditLogJob.start();
  parts.rollupJob.start();
  const metricsUrl = metricsServer ? `http://${displayHost(config.metrics.address!.host)}:${metricsServer.port}/metrics` : `http://${displayHost(config.host)}:${httpPort}/metrics`;
  logger.info({ url: `http://${displayHost(config.host)}:${httpPort}/api/v1`, grpcPort: grpc.port, metricsUrl }, 'control plane listening');

  // Loaded only when wanted: the probers pull in native add-ons the API does not need.
  // Results are followed live by this replica's WebSocket clients, or by another replica's.
  const watched = () => parts.appDeps.feed.clients() > 0 || parts.lease.othersAlive();
  const agent = config.embeddedAgent
    ? await (await import('./embedded-agent.js')).startEmbeddedAgent(grpc.port, secrets.agentToken, config.dataDir, logger, watched, config.grpcTls?.certFile)
    : undefined;
  if (agent) parts.appDeps.feed.onWatched(agent.watched);

  return {
    httpPort,
    grpcPort: grpc.port,
    metricsPort: metricsServer?.port,
    agentToken: secrets.agentToken,
    replicaId: parts.cluster.replicaId,
    runEscalations: () => parts.escalationJob.runOnce(),
    runHeartbeatDeadlines: () => parts.heartbeatJob.runOnce(),
    runReminders: () => parts.reminderJob.runOnce(),
    runSilenceBoundaries: () => parts.silenceJob.runOnce(),
    runMaintenanceAnnouncements: () => parts.announcementJob.runOnce(),
    runSubscriberDeliveries: () => parts.subscriberJob.runOnce(),
    runWatchdog: () => parts.watchdogJob.runOnce(),
    runMonthlyReports: () => parts.monthlyReportJob.runOnce(),
    runAuditRetention: () => parts.auditLogJob.runOnce(),
    runRetention: () => parts.retentionJob.runOnce(),
    settleRollups: () => parts.rollups.settle(),
    async stop() {
      // Its follows go with its lease below; the clients closing now need not withdraw theirs.
      parts.followers.stop();
      const closing = Promise.all([closeHttpServer(http), parts.appDeps.feed.close()]);
      await agent?.stop();
      await parts.gateway.drain();
      parts.gateway.closeAll();
      await grpc.stop();
      await closing;
      await metricsServer?.close();
      await parts.hub.settled();
      await parts.upkeep.stop();
      // The agents that were here count as gone at once, not when the lease runs out.
      await parts.lease.retire().catch((err) => logger.warn({ err }, 'could not retire the replica lease'));
      await parts.cluster.stop();
      await parts.escalationJob.stop();
      await parts.heartbeatJob.stop();
      await parts.reminderJob.stop();
      await parts.silenceJob.stop();
      await parts.announcementJob.stop();
      await parts.subscriberJob.stop();
      await parts.watchdogJob.stop();
      await parts.monthlyReportJob.stop();
      await parts.auditLogJob.stop();
      await parts.retentionJob.stop();
      await parts.rollupJob.stop();
      await parts.dispatcher.stop();
      await parts.passwordResets.drain();
      await db.close();
      removeMarker?.();
      logger.info('control plane stopped');
    },
  };
}

function displayHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
}
