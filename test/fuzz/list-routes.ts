// Routes that read their query string (or a path segment) and are fuzzed there: the same
// storable-text and type checks guard the query as the body.
import type { z } from 'zod';
import { ListAlertsQuery } from '../../control-plane/src/features/alerting/alerts.routes.js';
import { ListRulesQuery } from '../../control-plane/src/features/alerting/rules.schema.js';
import { CheckLogQuery, MetricsQuery, OverviewQuery, UptimeQuery } from '../../control-plane/src/features/checks/history.schema.js';
import { NoQuery } from '../../control-plane/src/http/crud-routes.js';
import { ListServicesQuery, ServicesSummaryQuery } from '../../control-plane/src/features/services/services.schema.js';
import type { Fixtures } from './fixtures.js';

export interface ListRoute {
  /** Under /api/v1; its one parameter is filled by `target`, else by unknown and hostile ids. */
  path: string;
  query: z.ZodType;
  target?: (f: Fixtures) => string;
  public?: true;
  runs: number;
}

export const LIST_ROUTES: ListRoute[] = [
  { path: '/services', query: ListServicesQuery, runs: 80 },
  { path: '/services/summary', query: ServicesSummaryQuery, runs: 30 },
  { path: '/services/overview', query: ListServicesQuery, runs: 80 },
  { path: '/services/:id', query: NoQuery, target: (f) => f.service, runs: 30 },
  { path: '/services/:id/checks', query: CheckLogQuery, target: (f) => f.service, runs: 50 },
  { path: '/services/:id/uptime', query: UptimeQuery, target: (f) => f.service, runs: 40 },
  { path: '/services/:id/metrics', query: MetricsQuery, target: (f) => f.service, runs: 40 },
  { path: '/metrics', query: OverviewQuery, runs: 40 },
  { path: '/alert-rules', query: ListRulesQuery, runs: 40 },
  { path: '/alerts', query: ListAlertsQuery, runs: 50 },
  { path: '/teams', query: NoQuery, runs: 20 },
  { path: '/organizations', query: NoQuery, runs: 20 },
  { path: '/heartbeat/:key', query: NoQuery, target: (f) => f.heartbeatKey, public: true, runs: 20 },
  { path: '/status-pages/:slug/public', query: NoQuery, target: (f) => f.statusPageSlug, public: true, runs: 20 },
];
