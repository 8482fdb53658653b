// /teams: full CRUD, organization-scoped (API.md "Other resource groups").
import { crudOperations, crudRoutes, NoQuery } from '../../http/crud-routes.js';
import { CreateTeamInput, TeamJson, UpdateTeamInput, toTeamJson } from './teams.schema.js';
import type { TeamsService } from './teams.service.js';

const resource = { prefix: '/teams', what: 'team', listQuery: NoQuery, createInput: CreateTeamInput, updateInput: UpdateTeamInput };

// A member id that is not a member of the organization is a 404; a name taken, a 409.
export const teamsOperations = crudOperations({ ...resource, tag: 'Teams', item: TeamJson, errors: [404, 409] });

export function teamsRoutes(teams: TeamsService) {
  return crudRoutes({ ...resource, service: teams, toJson: toTeamJson });
}
