// A check result on its way through ingest: as an agent reported it, then as stored, with
// what it did to its service's status.
import type { ServiceStatus } from '../../../../shared/src/status.js';
import type { SelectableService } from '../services/service-selector.js';
import type { StatusStep } from './service-status.js';

export interface IncomingResult {
  id: string;
  serviceId: string;
  status: ServiceStatus;
  responseTimeMs: number;
  message: string;
  location: string;
  agentId: string;
  /** An organization's own agent reported it, and may only report on that organization's services; null for a platform agent. */
  agentOrganizationId: string | null;
  checkedAt: Date;
  adHoc: boolean;
  details: Record<string, unknown>;
}

/** Stored, the result belongs to its service's organization; who may have reported it was settled by the insert. */
export interface StoredResult extends Omit<IncomingResult, 'agentOrganizationId'>, StatusStep {
  organizationId: string;
  serviceName: string;
  serviceEndpoint: string;
  /** An alert of the service was open when the batch began. */
  serviceAlerting: boolean;
  /** Other services depend on it: its leaving RED may release alerts it held back. */
  serviceHasDependents: boolean;
  /** The service as selectors of rules and silences read it; one object per service of the batch. */
  service: SelectableService;
  /** The service was stale (no result for three intervals) when the batch began. */
  serviceWasStale: boolean;
}
