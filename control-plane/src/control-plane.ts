// Builds the whole control plane from its configuration and starts it: database, services,
// HTTP API with the WebSocket feed, the agent gRPC endpoint and the embedded agent.
import type { Server } from 'node:http';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { createSecretBox } from './crypto/secret-box.js';
import { openDatabase } from './db/database.js';
import { createAgentAuthenticator } from './features/agents/agent-auth.js';
import { createAssignmentHub } from './features/agents/assignment-hub.js';
import { createAccountsRepository } from './features/auth/accounts.repository.js';
import { createAuthService } from './features/auth/auth.service.js';
import { createLoginLimiter } from './features/auth/login-limiter.js';
import { createPasswordHasher } from './features/auth/password-hasher.js';
import { createTokenService } from './features/auth/token-service.js';
import { createCheckHistoryRepository } from './features/checks/check-history.repository.js';
import { createCheckResultsRepository } from './features/checks/check-results.repository.js';
import { createHistoryService } from './features/checks/history.service.js';
import { createIngestService } from './features/checks/ingest.service.js';
import { createOrganizationAccess } from './features/organizations/organization-access.js';
import { createOrganizationsRepository } from './features/organizations/organizations.repository.js';
import { createEventBus } from './features/realtime/event-bus.js';
import { createServicesRepository } from './features/services/services.repository.js';
import { createServicesService, optionsForAgent } from './features/services/services.service.js';
import { createAgentGateway } from './grpc/agent-gateway.js';
import { startGrpcServer } from './grpc/grpc-server.js';
import type { Logger } from './logger.js';
import { resolveSecrets } from './secrets.js';
import { createWsFeed } from './ws/ws-feed.js';

export interface RunningControlPlane {
  httpPort: number;
  grpcPort: number;
  agentToken: string;
  /** Graceful: stop accepting, finish requests and ingestion, close streams and database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Keep the embedded database in memory instead of DATA_DIR (tests). */
  inMemoryDatabase?: boolean;
}

export async function startControlPlane(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningControlPlane> {
  const secrets = resolveSecrets(config.dataDir, { jwtSecret: config.jwtSecret, agentToken: config.agentToken });
  const db = await openDatabase({
    url: config.databaseUrl,
    embeddedDataDir: options.inMemoryDatabase ? null : config.dataDir,
    poolSize: config.databasePoolSize,
    logger,
  });

  const secretBox = createSecretBox(secrets.jwtSecret);
  const servicesRepo = createServicesRepository(db.em);
  const hub = createAssignmentHub({
    listForLocation: servicesRepo.listForLocation,
    toAssignment: (s) => ({
      serviceId: s.id,
      version: s.configVersion,
      checkType: s.checkType,
      endpoint: s.endpoint,
      intervalSeconds: s.checkIntervalSeconds,
      timeoutSeconds: s.timeoutSeconds,
      options: optionsForAgent(s.options, secretBox),
    }),
    logger,
  });
  const bus = createEventBus((err) => logger.error({ err }, 'event listener failed'));
  const tokens = createTokenService(secrets.jwtSecret);
  const services = createServicesService({
    services: servicesRepo,
    access: createOrganizationAccess(createOrganizationsRepository(db.em)),
    secrets: secretBox,
    listener: hub,
  });
  const auth = createAuthService({
    accounts: createAccountsRepository(db.em),
    hasher: createPasswordHasher(),
    tokens,
    limiter: createLoginLimiter({ windowMs: 15 * 60_000, maxFailuresPerEmail: 10, maxFailuresPerAddress: 100 }),
  });
  const feed = createWsFeed(tokens, bus, logger);
  const app = createApp({
    logger,
    tokens,
    auth,
    services,
    history: createHistoryService(createCheckHistoryRepository(db.em)),
    feed,
    pingDatabase: db.ping,
  });
  const gateway = createAgentGateway({
    auth: createAgentAuthenticator(secrets.agentToken),
    hub,
    ingest: createIngestService(createCheckResultsRepository(db.em), bus),
    logger,
  });

  const grpc = await startGrpcServer(gateway, config.host, config.grpcPort);
  const http: Server = await new Promise((resolve, reject) => {
    const server = app.listen(config.port, config.host, () => resolve(server));
    server.once('error', reject);
  });
  const httpPort = (http.address() as { port: number }).port;
  logger.info({ url: `http://${displayHost(config.host)}:${httpPort}/api/v1`, grpcPort: grpc.port }, 'control plane listening');

  // Loaded only when wanted: the probers pull in native add-ons the API does not need.
  const agent = config.embeddedAgent
    ? await (await import('./embedded-agent.js')).startEmbeddedAgent(grpc.port, secrets.agentToken, config.dataDir, logger)
    : undefined;

  return {
    httpPort,
    grpcPort: grpc.port,
    agentToken: secrets.agentToken,
    async stop() {
      const closing = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeIdleConnections();
      feed.close();
      await agent?.stop();
      await gateway.drain();
      gateway.closeAll();
      await grpc.stop();
      await closing;
      await hub.settled();
      await db.close();
      logger.info('control plane stopped');
    },
  };
}

function displayHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
}
