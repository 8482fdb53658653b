// Maintenance windows as the API answers and takes them, typed from the control plane's own
// schemas (control-plane/src/features/maintenance/maintenance.schema.ts); type-only, so
// nothing of the server reaches the bundle.
import type { z } from 'zod';
import type { CreateWindowInput, WindowJson } from '../../../../src/features/maintenance/maintenance.schema';

export type MaintenanceWindow = z.infer<typeof WindowJson>;
export type Occurrence = MaintenanceWindow['next_occurrences'][number];
export type WindowBody = z.input<typeof CreateWindowInput>;

export const MAINTENANCE_PATH = '/maintenance-windows';
