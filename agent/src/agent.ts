// Wires one agent: the stream to the control plane, the scheduler that runs the assigned
// checks, the spool plus publisher that deliver every result, and the test runs answered at once.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ControlMessage } from '../../shared/src/gen/agent.js';
import { createConnection } from './control/connection.js';
import type { StreamTls } from './control/grpc-stream.js';
import { createTestRunner } from './control/test-runs.js';
import type { ProxySettings } from './control/proxy-tunnel.js';
import type { ProberRegistry } from './probers/registry.js';
import { createPublisher } from './publisher/publisher.js';
import { assignmentFromWire } from './scheduler/assignments.js';
import { createScheduler, type CompletedRun } from './scheduler/scheduler.js';
import { DiskSpool, type SpooledResult, type SpoolStats } from './spool/disk-spool.js';
import { resultsMessage } from './spool/encoded-results.js';

export interface AgentOptions {
  server: string;
  token: string;
  location: string;
  dataDir: string;
  version: string;
  registry: ProberRegistry;
  logger: Logger;
  agentId?: string;
  /** TLS for the stream to the control plane; plaintext when absent. */
  tls?: StreamTls;
  proxy?: ProxySettings;
  batchMaxResults?: number;
  /** How long a steady (GREEN, unchanged) result may wait for a batch; a function when that changes (call steadyDelayShortened). */
  batchMaxDelayMs?: number | (() => number);
  /** How long a result someone waits for may wait for a batch (isUrgent). */
  batchUrgentDelayMs?: number;
  maxConcurrentChecks?: number;
  /** Spreads the first snapshot's runs over at most this long (the scheduler's default otherwise). */
  snapshotSpreadMs?: number;
  spoolMaxBytes?: number;
  /** Called when the control plane refuses the agent for good (e.g. a bad token). */
  onFatal?: (reason: string) => void;
  /** Called after every check (metrics). */
  onCheck?: (ok: boolean, latenessMs: number | null) => void;
}

export interface AgentStatus {
  agentId: string;
  connected: boolean;
  assignments: number;
  /** Scheduled runs skipped because the agent could not keep up (the queue for a place was full). */
  skippedRuns: number;
  spool: SpoolStats;
  /** Why the control plane refused this agent for good; the agent no longer runs checks. */
  fatal?: string;
}

export interface Agent {
  start(): Promise<void>;
  /** Graceful: stops scheduling, delivers what it can within a few seconds, closes the stream. */
  stop(): Promise<void>;
  status(): AgentStatus;
  /** batchMaxDelayMs (a function) may have become shorter: results waiting go by then. */
  steadyDelayShortened(): void;
}

const DRAIN_ON_STOP_MS = 5_000;

export function createAgent(options: AgentOptions): Agent {
  const { logger } = options;
  const agentId = options.agentId ?? loadOrCreateAgentId(options.dataDir);
  const spool = DiskSpool.open(path.join(options.dataDir, 'spool'), { maxBytes: options.spoolMaxBytes ?? 256 * 1024 * 1024, logger });
  let heartbeat: NodeJS.Timeout | undefined;
  let fatal: string | undefined;
  let stopping: Promise<void> | undefined;

  const connection = createConnection({
    server: options.server,
    tls: options.tls,
    proxy: options.proxy,
    logger,
    hello: () => ({
      agentId,
      token: options.token,
      version: options.version,
      location: options.location,
      capabilities: options.registry.capabilities(),
      hostname: os.hostname(),
    }),
    handlers: {
      onWelcome(heartbeatIntervalSeconds) {
        clearInterval(heartbeat);
        heartbeat = setInterval(() => {
          connection.send({ payload: { $case: 'heartbeat', value: { sentAtMs: Date.now(), spoolDepth: spool.stats().results } } });
        }, heartbeatIntervalSeconds * 1000);
        heartbeat.unref();
        publisher.connected();
      },
      onMessage: handleControlMessage,
      onDisconnected() {
        clearInterval(heartbeat);
        publisher.disconnected();
      },
      onFatal(reason) {
        fatal = reason;
        logger.fatal({ reason }, 'the control plane refused this agent; it stops running checks');
        clearInterval(heartbeat);
        // Results already produced stay in the spool for a later start with a valid token.
        void scheduler.stop();
        options.onFatal?.(reason);
      },
    },
  });

  const publisher = createPublisher({
    spool,
    send: (batch) => connection.sendEncoded(resultsMessage(batch.batchId, batch.encoded)),
    maxResults: options.batchMaxResults,
    maxDelayMs: options.batchMaxDelayMs,
    urgentDelayMs: options.batchUrgentDelayMs,
  });

  const scheduler = createScheduler({
    registry: options.registry,
    logger,
    maxConcurrentChecks: options.maxConcurrentChecks,
    snapshotSpreadMs: options.snapshotSpreadMs,
    onResult: (run: CompletedRun) => {
      options.onCheck?.(run.result.ok, run.latenessMs);
      const result: SpooledResult = {
        serviceId: run.assignment.serviceId,
        assignmentVersion: run.assignment.version,
        ok: run.result.ok,
        // The scheduler judged the speed by the service's own degraded_after_ms.
        degraded: run.status === 'YELLOW',
        speedJudged: true,
        responseTimeMs: run.result.responseTimeMs,
        message: run.result.message,
        checkedAtMs: run.checkedAt,
        details: run.result.details,
        adHoc: run.adHoc,
      };
      publisher.publish(result, isUrgent(run));
    },
  });

  const runTest = createTestRunner({ registry: options.registry, send: (message) => connection.send(message), logger });

  function handleControlMessage(message: ControlMessage): void {
    const p = message.payload;
    switch (p?.$case) {
      case 'snapshot':
        scheduler.replaceAll(p.value.assignments.map(assignmentFromWire));
        break;
      case 'upsert':
        if (p.value.assignment) scheduler.upsert(assignmentFromWire(p.value.assignment));
        break;
      case 'removal':
        scheduler.remove(p.value.serviceId, p.value.version);
        break;
      case 'runNow':
        scheduler.runNow(p.value.serviceId);
        break;
      case 'ack':
        publisher.acknowledged(p.value.batchId);
        break;
      case 'testRun':
        runTest(p.value);
        break;
      default:
        break;
    }
  }

  return {
    async start() {
      logger.info({ agentId, server: options.server, location: options.location }, 'agent starting');
      connection.start();
    },
    stop() {
      stopping ??= (async () => {
        await scheduler.stop();
        if (connection.isConnected()) {
          const delivered = await publisher.drain(DRAIN_ON_STOP_MS);
          if (!delivered) logger.warn({ pending: spool.stats().results }, 'stopping with undelivered results; they stay in the spool');
        } else {
          await publisher.flush();
        }
        publisher.stop();
        await spool.close();
        clearInterval(heartbeat);
        connection.stop();
      })();
      return stopping;
    },
    status: () => ({ agentId, connected: connection.isConnected(), assignments: scheduler.size(), skippedRuns: scheduler.skippedRuns(), spool: spool.stats(), ...(fatal ? { fatal } : {}) }),
    steadyDelayShortened: () => publisher.delayShortened(),
  };
}

/** The agent's identity survives restarts, so its spool and assignments stay its own. */
function loadOrCreateAgentId(dataDir: string): string {
  const file = path.join(dataDir, 'agent-id');
  try {
    const id = readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f-]{36}$/i.test(id)) return id;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  const id = randomUUID();
  // Written whole or not at all, so a crash cannot leave a torn id behind.
  writeFileSync(`${file}.tmp`, `${id}\n`);
  renameSync(`${file}.tmp`, file);
  return id;
}

/**
 * A result someone waits for: a failure or a degraded check (alert rules count them one by
 * one), a change of status (an alert opens or resolves, the dashboard turns), the first
 * result of a new or changed service, and "Check now".
 */
function isUrgent(run: CompletedRun): boolean {
  return run.adHoc || run.statusChanged || run.status !== 'GREEN';
}
