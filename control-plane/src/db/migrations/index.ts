// Every migration, in order. Listed explicitly (no directory scan) so the compiled build
// and the TypeScript sources run the same list.
import type { MigrationObject } from '@mikro-orm/core';
import { Migration0001Initial } from './0001-initial.js';
import { Migration0002Alerting } from './0002-alerting.js';
import { Migration0003Agents } from './0003-agents.js';
import { Migration0004ApiKeys } from './0004-api-keys.js';
import { Migration0005Heartbeats } from './0005-heartbeats.js';
import { Migration0006RollupsAndPartitions } from './0006-rollups-and-partitions.js';
import { Migration0007Teams } from './0007-teams.js';
import { Migration0008SslCertificates } from './0008-ssl-certificates.js';
import { Migration0009StatusPages } from './0009-status-pages.js';
import { Migration0010RateLimits } from './0010-rate-limits.js';
import { Migration0011LocationResponseTime } from './0011-location-response-time.js';
import { Migration0012RawResultsKey } from './0012-raw-results-key.js';
import { Migration0013RoomForStatusUpdates } from './0013-room-for-status-updates.js';
import { Migration0014Replicas } from './0014-replicas.js';
import { Migration0015ServiceDependencies } from './0015-service-dependencies.js';
import { Migration0016CronHeartbeats } from './0016-cron-heartbeats.js';

export const MIGRATIONS: MigrationObject[] = [
  { name: '0001-initial', class: Migration0001Initial },
  { name: '0002-alerting', class: Migration0002Alerting },
  { name: '0003-agents', class: Migration0003Agents },
  { name: '0004-api-keys', class: Migration0004ApiKeys },
  { name: '0005-heartbeats', class: Migration0005Heartbeats },
  { name: '0006-rollups-and-partitions', class: Migration0006RollupsAndPartitions },
  { name: '0007-teams', class: Migration0007Teams },
  { name: '0008-ssl-certificates', class: Migration0008SslCertificates },
  { name: '0009-status-pages', class: Migration0009StatusPages },
  { name: '0010-rate-limits', class: Migration0010RateLimits },
  { name: '0011-location-response-time', class: Migration0011LocationResponseTime },
  { name: '0012-raw-results-key', class: Migration0012RawResultsKey },
  { name: '0013-room-for-status-updates', class: Migration0013RoomForStatusUpdates },
  { name: '0014-replicas', class: Migration0014Replicas },
  { name: '0015-service-dependencies', class: Migration0015ServiceDependencies },
  { name: '0016-cron-heartbeats', class: Migration0016CronHeartbeats },
];
