// An incident written on a status page, and its updates. Its status, affected services and
// resolution always follow its latest update, so editing or deleting an update keeps them true.
import type { INCIDENT_IMPACTS, INCIDENT_STATUSES } from './incidents.schema.js';

export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];
export type IncidentImpact = (typeof INCIDENT_IMPACTS)[number];

export interface Affected {
  serviceId: string;
  impact: IncidentImpact;
}

export interface IncidentUpdate {
  id: string;
  status: IncidentStatus;
  message: string;
  /** The affected list this update set; null: unchanged. */
  affected: Affected[] | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface Incident {
  id: string;
  organizationId: string;
  statusPageId: string;
  title: string;
  status: IncidentStatus;
  impact: IncidentImpact;
  affected: (Affected & { serviceName: string })[];
  alertId: string | null;
  startsAt: Date;
  resolvedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  updates: IncidentUpdate[];
}

/** What the incident's timeline says now: the latest status, the latest affected list, when it resolved. */
export function summarize(updates: readonly IncidentUpdate[]): { status: IncidentStatus; affected: Affected[]; resolvedAt: Date | null } {
  const latest = updates[updates.length - 1]!;
  const affected = [...updates].reverse().find((u) => u.affected !== null)?.affected ?? [];
  return { status: latest.status, affected, resolvedAt: latest.status === 'resolved' ? latest.createdAt : null };
}
