// /maintenance-windows: full CRUD, organization-scoped (API.md "Other resource groups").
import type { Clock } from '../../clock.js';
import { crudOperations, crudRoutes, NoQuery } from '../../http/crud-routes.js';
import { CreateWindowInput, UpdateWindowInput, WindowJson, toWindowJson } from './maintenance.schema.js';
import type { MaintenanceService } from './maintenance.service.js';
import type { MaintenanceWindow } from './maintenance.repository.js';

const resource = { prefix: '/maintenance-windows', what: 'maintenance window', listQuery: NoQuery, createInput: CreateWindowInput, updateInput: UpdateWindowInput };

// A service id of another organization is a 404.
export const maintenanceOperations = crudOperations({ ...resource, tag: 'Maintenance windows', item: WindowJson, errors: [404] });

export function maintenanceRoutes(windows: MaintenanceService, clock: Clock) {
  return crudRoutes({ ...resource, service: windows, toJson: (w: MaintenanceWindow) => toWindowJson(w, clock.now()) });
}
