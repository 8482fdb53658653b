// The control plane's Prometheus families. Counters and histograms are updated in place by
// the observers handed to the HTTP app, the ingest service and the senders; gauges are read
// at scrape time (collect), from memory or with one statement per family, so nothing on a hot
// path pays for them. probe_success and probe_duration_seconds keep blackbox_exporter's names
// and meaning, so its Grafana dashboards and alerts work on Outpost.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { MetricsSettings } from '../config.js';
import type { PoolUse } from '../db/database.js';
import type { IngestObserver } from '../features/result-pipeline/observed-ingest.js';
import { CHANNEL_TYPES } from '../features/notifications/channels.schema.js';
import type { DeliveryObserver } from '../features/notifications/senders/observed-senders.js';
import type { RequestObserver } from '../http/request-metrics.js';
import type { Logger } from '../logger.js';
import type { MetricsReadings, ProbeReadings } from './metrics-readings.repository.js';

export interface MetricsSources {
  readings: MetricsReadings;
  webSocketClients: () => number;
  poolUse: () => PoolUse;
  ingestWaiting: () => number;
  settings: Pick<MetricsSettings, 'perService' | 'maxServices'>;
  logger: Logger;
}

export interface ControlPlaneMetrics {
  registry: Registry;
  requests: RequestObserver;
  ingest: IngestObserver;
  deliveries: DeliveryObserver;
}

/** Fills a gauge from the database at scrape time; a failed read leaves it empty for this scrape. */
type DatabaseGauge = <T>(options: { name: string; help: string; labelNames?: readonly string[]; read: () => Promise<T>; fill: (gauge: Gauge, value: T) => void }) => void;

export function createControlPlaneMetrics({ readings, webSocketClients, poolUse, ingestWaiting, settings, logger }: MetricsSources): ControlPlaneMetrics {
  const registry = new ScrapedRegistry();
  const registers = [registry];

  const requestDuration = new Histogram({
    name: 'outpost_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status, and how long they took',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const batches = new Counter({ name: 'outpost_ingest_batches_total', help: 'Result batches from agents, by outcome', labelNames: ['outcome'], registers });
  const results = new Counter({ name: 'outpost_ingest_results_total', help: 'Results from agents, stored or ignored (replays, unknown services, past retention)', labelNames: ['outcome'], registers });
  const ingestDuration = new Histogram({ name: 'outpost_ingest_duration_seconds', help: 'Time to ingest one batch: results, statuses, rollups, alerts, outbox, waiting for a transaction included', registers });
  const ingestTransactions = new Counter({ name: 'outpost_ingest_transactions_total', help: 'Ingest transactions committed; under load one stores several batches', registers });
  const groupedBatches = new Counter({ name: 'outpost_ingest_transaction_batches_total', help: 'Batches stored by the committed ingest transactions (over outpost_ingest_transactions_total: batches per transaction)', registers });
  const attempts = new Counter({ name: 'outpost_notification_delivery_attempts_total', help: 'Notification delivery attempts, by channel type', labelNames: ['channel_type'], registers });
  const failures = new Counter({ name: 'outpost_notification_delivery_failures_total', help: 'Notification delivery attempts that failed, by channel type', labelNames: ['channel_type'], registers });
  // Series present from the start, so that rate() and alerts see a zero before the first event.
  for (const outcome of ['ok', 'failed']) batches.inc({ outcome }, 0);
  for (const outcome of ['stored', 'ignored']) results.inc({ outcome }, 0);
  for (const channel_type of CHANNEL_TYPES) {
    attempts.inc({ channel_type }, 0);
    failures.inc({ channel_type }, 0);
  }

  new Gauge({ name: 'outpost_websocket_clients', help: 'WebSocket feed clients of this replica', registers, collect() { this.set(webSocketClients()); } });
  new Gauge({
    name: 'outpost_db_pool_connections',
    help: 'Database pool connections of this replica, in use or idle',
    labelNames: ['state'],
    registers,
    collect() {
      const use = poolUse();
      this.set({ state: 'in_use' }, use.inUse);
      this.set({ state: 'idle' }, use.idle);
    },
  });
  new Gauge({ name: 'outpost_ingest_waiting_batches', help: 'Result batches of this replica waiting for an ingest transaction while others are stored', registers, collect() { this.set(ingestWaiting()); } });
  new Gauge({ name: 'outpost_db_pool_waiting', help: 'Queries of this replica waiting for a pool connection', registers, collect() { this.set(poolUse().waiting); } });

  const databaseGauge: DatabaseGauge = ({ name, help, labelNames = [], read, fill }) => {
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        this.reset();
        try {
          fill(this, await read());
        } catch (err) {
          logger.warn({ err, metric: name }, 'could not read a metric from the database');
        }
      },
    });
  };
  databaseGauge({
    name: 'outpost_agents_online',
    help: 'Agents connected to a live replica, by location (the same on every replica)',
    labelNames: ['location'],
    read: readings.agentsOnline,
    fill: (gauge, online) => online.forEach((n, location) => gauge.set({ location }, n)),
  });
  databaseGauge({
    name: 'outpost_outbox_pending_deliveries',
    help: 'Notification deliveries waiting to be sent or retried, by channel type (the same on every replica)',
    labelNames: ['channel_type'],
    read: readings.pendingDeliveries,
    fill: (gauge, pending) => CHANNEL_TYPES.forEach((channel_type) => gauge.set({ channel_type }, pending.get(channel_type) ?? 0)),
  });
  databaseGauge({
    name: 'outpost_rollup_backlog_batches',
    help: 'Ingested batches whose results wait to be folded into the rollups (the same on every replica)',
    read: readings.rollupBacklog,
    fill: (gauge, batches) => gauge.set(batches),
  });
  if (settings.perService) probeGauges(databaseGauge, () => readings.probes(settings.maxServices));

  return {
    registry,
    requests: {
      requestFinished: (r) => requestDuration.observe({ method: r.method, route: r.route, status: r.status }, r.seconds),
    },
    ingest: {
      batchIngested(b) {
        batches.inc({ outcome: b.failed ? 'failed' : 'ok' });
        ingestDuration.observe(b.seconds);
        if (b.failed) return;
        results.inc({ outcome: 'stored' }, b.stored);
        results.inc({ outcome: 'ignored' }, b.received - b.stored);
      },
      transactionCommitted(batchCount) {
        ingestTransactions.inc();
        groupedBatches.inc(batchCount);
      },
    },
    deliveries: {
      deliveryAttempted(channel_type, ok) {
        attempts.inc({ channel_type });
        if (!ok) failures.inc({ channel_type });
      },
    },
  };
}

/**
 * prom-client's default metrics start with the first scrape: their event-loop lag histogram
 * samples every 10 ms, a hundred wake-ups a second that cost an idle control plane more CPU than
 * all its own work (bench/idle.ts), so an installation that nobody scrapes does not pay for them.
 */
class ScrapedRegistry extends Registry {
  private defaultsStarted = false;

  override metrics(): Promise<string> {
    if (!this.defaultsStarted) {
      this.defaultsStarted = true;
      collectDefaultMetrics({ register: this });
    }
    return super.metrics();
  }
}

/** Three families from one statement: the first collect of a scrape starts it, the others share it. */
function probeGauges(databaseGauge: DatabaseGauge, read: () => Promise<ProbeReadings>): void {
  let pending: Promise<ProbeReadings> | undefined;
  const shared = () => (pending ??= read().finally(() => (pending = undefined)));
  const labelNames = ['service_id', 'service_name', 'location'];
  databaseGauge({
    name: 'probe_success',
    help: 'Whether the latest check of the service from the location passed (as blackbox_exporter)',
    labelNames,
    read: shared,
    fill: (gauge, r) => r.probes.forEach((p) => gauge.set({ service_id: p.serviceId, service_name: p.serviceName, location: p.location }, p.ok ? 1 : 0)),
  });
  databaseGauge({
    name: 'probe_duration_seconds',
    help: 'Response time of the latest check of the service from the location (as blackbox_exporter)',
    labelNames,
    read: shared,
    fill: (gauge, r) => r.probes.forEach((p) => p.seconds !== null && gauge.set({ service_id: p.serviceId, service_name: p.serviceName, location: p.location }, p.seconds)),
  });
  databaseGauge({
    name: 'outpost_metrics_services_omitted',
    help: 'Services left out of probe_success and probe_duration_seconds by METRICS_MAX_SERVICES',
    read: shared,
    fill: (gauge, r) => gauge.set(r.omittedServices),
  });
}
