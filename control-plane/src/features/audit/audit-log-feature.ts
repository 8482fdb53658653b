// Assembles the audit log for the composition root: the trail is made earlier (every feature
// may write to it); this adds the routes' service, the middleware that records changes and
// sign-ins, and the daily retention job.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context, Next } from 'koa';
import type { Clock } from '../../clock.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { createDueTimer, type DueTimer } from '../../jobs/due-timer.js';
import type { Logger } from '../../logger.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import { auditChanges } from './audit-changes.js';
import { createAuditLogRepository } from './audit-log.repository.js';
import { createAuditLogService, type AuditLogService } from './audit-log.service.js';
import { auditRetention } from './audit-retention.js';
import { auditSignIns } from './audit-sign-ins.js';
import { auditSnapshots, type AuditedServices, type SnapshotRegistry } from './audit-snapshots.js';
import type { RequestAuditTrail } from './audit-trail.js';

export interface AuditLogFeatureDeps {
  em: () => EntityManager;
  trail: RequestAuditTrail;
  access: OrganizationAccess;
  /** Every operation of /api/v1: what each route changes is read from them. */
  operations: readonly ApiOperation[];
  /** The services whose resources are snapshotted; asked once requests arrive (they are made later). */
  services: () => AuditedServices;
  clock: Clock;
  /** The longest the retention job sleeps between looks at the clock. */
  maxWaitMs: number;
  logger: Logger;
}

type Middleware = (ctx: Context, next: Next) => Promise<void>;

export interface AuditLogFeature {
  service: AuditLogService;
  /** After authentication on the protected routes: records their successful changes. */
  changes: Middleware;
  /** Around the public auth routes: records sign-ins, failed sign-ins and registrations. */
  signIns: Middleware;
  /** Deletes rows past their retention, daily; started and stopped with the other jobs. */
  job: DueTimer;
}

export function createAuditLogFeature(d: AuditLogFeatureDeps): AuditLogFeature {
  const log = createAuditLogRepository(d.em);
  const service = createAuditLogService({ log, access: d.access, clock: d.clock });
  let snapshots: SnapshotRegistry | undefined;
  const registry = () =>
    (snapshots ??= {
      ...auditSnapshots(d.services(), d.clock),
      audit_log_settings: async (actor) => ({ retention_days: (await service.settings(actor)).retentionDays }),
    });
  return {
    service,
    changes: auditChanges({ trail: d.trail, operations: d.operations, snapshots: registry }),
    signIns: auditSignIns({ trail: d.trail, findAccount: log.accountOf }),
    job: createDueTimer('audit log retention', auditRetention({ log, clock: d.clock }), { clock: d.clock, maxWaitMs: d.maxWaitMs, logger: d.logger }),
  };
}
