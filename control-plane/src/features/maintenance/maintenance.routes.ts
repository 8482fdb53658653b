// /maintenance-windows: full CRUD, organization-scoped (API.md "Other resource groups").
import type { Clock } from '../../clock.js';
import { crudRoutes, NoQuery } from '../../http/crud-routes.js';
import { CreateWindowInput, UpdateWindowInput, toWindowJson } from './maintenance.schema.js';
import type { MaintenanceService } from './maintenance.service.js';
import type { MaintenanceWindow } from './maintenance.repository.js';

export function maintenanceRoutes(windows: MaintenanceService, clock: Clock) {
  return crudRoutes({
    prefix: '/maintenance-windows',
    what: 'maintenance window',
    service: windows,
    listQuery: NoQuery,
    createInput: CreateWindowInput,
    updateInput: UpdateWindowInput,
    toJson: (w: MaintenanceWindow) => toWindowJson(w, clock.now()),
  });
}
