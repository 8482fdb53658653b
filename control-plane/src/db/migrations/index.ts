// Every migration, in order. Listed explicitly (no directory scan) so the compiled build and the
// TypeScript sources run the same list. A migration's module (and with it the migrator) is
// loaded only when migrations run: once loaded, code stays resident for the life of the process.
// A new migration takes no lock that grows with a table (docs/adr/0022): say in its header which
// large tables it touches and how; test/control-plane/upgrade.test.ts must keep passing.
import type { MigrationObject } from '@mikro-orm/core';

export interface MigrationEntry {
  readonly name: string;
  load(): Promise<MigrationObject['class']>;
}

export const MIGRATIONS: readonly MigrationEntry[] = [
  { name: '0001-initial', load: async () => (await import('./0001-initial.js')).Migration0001Initial },
  { name: '0002-alerting', load: async () => (await import('./0002-alerting.js')).Migration0002Alerting },
  { name: '0003-agents', load: async () => (await import('./0003-agents.js')).Migration0003Agents },
  { name: '0004-api-keys', load: async () => (await import('./0004-api-keys.js')).Migration0004ApiKeys },
  { name: '0005-heartbeats', load: async () => (await import('./0005-heartbeats.js')).Migration0005Heartbeats },
  { name: '0006-rollups-and-partitions', load: async () => (await import('./0006-rollups-and-partitions.js')).Migration0006RollupsAndPartitions },
  { name: '0007-teams', load: async () => (await import('./0007-teams.js')).Migration0007Teams },
  { name: '0008-ssl-certificates', load: async () => (await import('./0008-ssl-certificates.js')).Migration0008SslCertificates },
  { name: '0009-status-pages', load: async () => (await import('./0009-status-pages.js')).Migration0009StatusPages },
  { name: '0010-rate-limits', load: async () => (await import('./0010-rate-limits.js')).Migration0010RateLimits },
  { name: '0011-location-response-time', load: async () => (await import('./0011-location-response-time.js')).Migration0011LocationResponseTime },
  { name: '0012-raw-results-key', load: async () => (await import('./0012-raw-results-key.js')).Migration0012RawResultsKey },
  { name: '0013-room-for-status-updates', load: async () => (await import('./0013-room-for-status-updates.js')).Migration0013RoomForStatusUpdates },
  { name: '0014-replicas', load: async () => (await import('./0014-replicas.js')).Migration0014Replicas },
  { name: '0015-service-dependencies', load: async () => (await import('./0015-service-dependencies.js')).Migration0015ServiceDependencies },
  { name: '0016-cron-heartbeats', load: async () => (await import('./0016-cron-heartbeats.js')).Migration0016CronHeartbeats },
  { name: '0017-rollup-backlog', load: async () => (await import('./0017-rollup-backlog.js')).Migration0017RollupBacklog },
  { name: '0018-replica-follows', load: async () => (await import('./0018-replica-follows.js')).Migration0018ReplicaFollows },
  { name: '0019-organization-secrets', load: async () => (await import('./0019-organization-secrets.js')).Migration0019OrganizationSecrets },
  { name: '0020-quiet-alerting', load: async () => (await import('./0020-quiet-alerting.js')).Migration0020QuietAlerting },
  { name: '0021-recurring-maintenance', load: async () => (await import('./0021-recurring-maintenance.js')).Migration0021RecurringMaintenance },
  { name: '0022-agent-sightings', load: async () => (await import('./0022-agent-sightings.js')).Migration0022AgentSightings },
  { name: '0023-status-page-communication', load: async () => (await import('./0023-status-page-communication.js')).Migration0023StatusPageCommunication },
  { name: '0024-sessions-and-scoped-keys', load: async () => (await import('./0024-sessions-and-scoped-keys.js')).Migration0024SessionsAndScopedKeys },
  { name: '0025-audit-log', load: async () => (await import('./0025-audit-log.js')).Migration0025AuditLog },
  { name: '0026-invitations-and-resets', load: async () => (await import('./0026-invitations-and-resets.js')).Migration0026InvitationsAndResets },
  { name: '0027-second-factors', load: async () => (await import('./0027-second-factors.js')).Migration0027SecondFactors },
  { name: '0028-single-sign-on', load: async () => (await import('./0028-single-sign-on.js')).Migration0028SingleSignOn },
];

/** The migrations as MikroORM's migrator takes them, their modules loaded. */
export function loadMigrations(): Promise<MigrationObject[]> {
  return Promise.all(MIGRATIONS.map(async ({ name, load }) => ({ name, class: await load() })));
}

/**
 * The migrations `known` (this build's, by default) beside those a database or a backup holds:
 * the known ones it lacks, in order, and the ones only a newer build knows.
 */
export function compareMigrations(applied: readonly string[], known: readonly string[] = MIGRATIONS.map((m) => m.name)): { pending: string[]; unknown: string[] } {
  const done = new Set(applied);
  const ours = new Set(known);
  return { pending: known.filter((name) => !done.has(name)), unknown: applied.filter((name) => !ours.has(name)) };
}
