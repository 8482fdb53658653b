// The public status page as the API answers it, typed from the control plane's own schemas
// (features/status-pages/status-pages.schema.ts); type-only, so nothing of the server
// reaches the bundle.
import type { z } from 'zod';
import type { PublicHistoryJson, PublicStatusPageJson } from '../../../../src/features/status-pages/status-pages.schema';

export type PublicStatusPage = z.infer<typeof PublicStatusPageJson>;
export type PublicService = PublicStatusPage['services'][number];
export type PublicGroup = PublicStatusPage['groups'][number];
export type PublicIncident = PublicStatusPage['incidents'][number];
export type WrittenIncident = Extract<PublicIncident, { source: 'written' }>;
export type AlertIncident = Extract<PublicIncident, { source: 'alert' }>;
export type PublicMaintenance = PublicStatusPage['maintenance'][number];
export type PublicHistory = z.infer<typeof PublicHistoryJson>;
export type HistoryItem = PublicHistory['items'][number];

export const INCIDENT_STATUS_TEXT: Record<WrittenIncident['status'], string> = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
};

export const IMPACT_TEXT: Record<WrittenIncident['impact'], string> = {
  none: 'No impact',
  minor: 'Minor impact',
  major: 'Major impact',
  critical: 'Critical impact',
};
