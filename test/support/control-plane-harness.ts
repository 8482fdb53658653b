// Starts a real control plane (HTTP + gRPC on free loopback ports) against the test
// database, with or without its embedded agent.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../control-plane/src/config.js';
import { startControlPlane, type RunningControlPlane, type StartOptions } from '../../control-plane/src/control-plane.js';
import { createLogger } from '../../control-plane/src/logger.js';
import { ApiClient } from './api-client.js';
import { testDatabase } from './test-database.js';

export interface TestControlPlane {
  running: RunningControlPlane;
  api: ApiClient;
  baseUrl: string;
  dataDir: string;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  embeddedAgent?: boolean;
  /** Use the embedded PGlite started by the control plane itself (DATABASE_URL unset). */
  ownEmbeddedDatabase?: boolean;
  /** A fixed gRPC port, so agents reconnect to a restarted control plane. */
  grpcPort?: number;
  /** Passed to the control plane: a movable clock, fast retries, short job intervals. */
  start?: StartOptions;
  env?: Record<string, string>;
  /** A data folder that outlives this control plane (restarts); by default a temporary one. */
  dataDir?: string;
}

export async function startTestControlPlane(options: HarnessOptions = {}): Promise<TestControlPlane> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'outpost-test-'));
  const db = options.ownEmbeddedDatabase ? undefined : await testDatabase();
  const config = loadConfig({
    PORT: '0',
    GRPC_PORT: String(options.grpcPort ?? 0),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: db?.url,
    DATABASE_POOL_SIZE: db ? String(db.poolSize) : undefined,
    EMBEDDED_AGENT: String(options.embeddedAgent ?? false),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // One secret for every control plane on the shared test database, as in production.
    JWT_SECRET: 'outpost-test-secret-0123456789abcdefghijklmnop',
    // Every test registers users of its own from 127.0.0.1; limits.test.ts tests this limit.
    REGISTRATION_RATE_LIMIT: 'off',
    ...options.env,
  });
  const logger = createLogger(config.logLevel);
  const running = await startControlPlane(config, logger, { inMemoryDatabase: options.ownEmbeddedDatabase, ...options.start });
  const baseUrl = `http://127.0.0.1:${running.httpPort}`;
  return {
    running,
    api: new ApiClient(baseUrl),
    baseUrl,
    dataDir,
    async stop() {
      await running.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
