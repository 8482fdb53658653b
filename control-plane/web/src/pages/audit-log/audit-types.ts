// The audit log's answers, typed from the control plane's own schema
// (features/audit/audit-log.schema.ts); type-only, so nothing of the server is bundled.
import type { z } from 'zod';
import type { AuditEntryJson, AuditLogPageJson, AuditLogSettingsJson } from '../../../../src/features/audit/audit-log.schema';

export type AuditEntry = z.infer<typeof AuditEntryJson>;
export type AuditLogPage = z.infer<typeof AuditLogPageJson>;
export type AuditLogSettings = z.infer<typeof AuditLogSettingsJson>;

/** What the filter form sends: every field optional, empty ones left out of the query. */
export interface AuditFilter {
  actor: string;
  resource: string;
  resource_id: string;
  action: string;
  /** datetime-local values, in the browser's time zone. */
  from: string;
  to: string;
}

export const NO_FILTER: AuditFilter = { actor: '', resource: '', resource_id: '', action: '', from: '', to: '' };
