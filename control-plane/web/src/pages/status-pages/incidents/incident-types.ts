// Incidents a team writes on a status page, with their timeline of updates (oldest first),
// typed from the control plane's own schemas (features/incidents/incidents.schema.ts);
// type-only, so nothing of the server reaches the bundle.
import type { z } from 'zod';
import type { AddUpdateInput, CreateIncidentInput, IncidentJson } from '../../../../../src/features/incidents/incidents.schema';

export type Incident = z.infer<typeof IncidentJson>;
export type IncidentUpdate = Incident['updates'][number];
export type IncidentStatus = Incident['status'];
export type Impact = Incident['impact'];
export type IncidentBody = z.input<typeof CreateIncidentInput>;
export type UpdateBody = z.input<typeof AddUpdateInput>;

export interface Affected {
  service_id: string;
  impact: Impact;
}

export const INCIDENT_STATUSES: IncidentStatus[] = ['investigating', 'identified', 'monitoring', 'resolved'];
export const IMPACTS: Impact[] = ['none', 'minor', 'major', 'critical'];

export const STATUS_TEXT: Record<IncidentStatus, string> = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
};

export const IMPACT_TEXT: Record<Impact, string> = {
  none: 'No impact',
  minor: 'Minor',
  major: 'Major',
  critical: 'Critical',
};

export const incidentsPath = (pageId: string) => `/status-pages/${pageId}/incidents`;
