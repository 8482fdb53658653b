// /teams: full CRUD, organization-scoped (API.md "Other resource groups").
import { crudRoutes, NoQuery } from '../../http/crud-routes.js';
import { CreateTeamInput, UpdateTeamInput, toTeamJson } from './teams.schema.js';
import type { TeamsService } from './teams.service.js';

export function teamsRoutes(teams: TeamsService) {
  return crudRoutes({
    prefix: '/teams',
    what: 'team',
    service: teams,
    listQuery: NoQuery,
    createInput: CreateTeamInput,
    updateInput: UpdateTeamInput,
    toJson: toTeamJson,
  });
}
