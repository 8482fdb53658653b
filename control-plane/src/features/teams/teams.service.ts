// Teams (API.md "Other resource groups"): everyone reads them; admins and owners manage them.
// A rule's or an escalation step's team_ids send each member an e-mail.
import { randomUUID } from 'node:crypto';
import { notFound, validationFailed } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { CreateTeamInput, UpdateTeamInput } from './teams.schema.js';
import type { Team, TeamsRepository } from './teams.repository.js';

export function createTeamsService(teams: TeamsRepository, access: OrganizationAccess) {
  const findIn = async (organizationId: string, id: string) => {
    const found = await teams.find(organizationId, id);
    if (!found) throw notFound('team');
    return found;
  };
  const checkMembers = async (organizationId: string, memberIds: string[] | undefined) => {
    const strangers = await teams.strangers(organizationId, memberIds ?? []);
    if (strangers.length > 0) {
      throw validationFailed(`member_ids must name members of the organization; not a member: ${strangers.join(', ')}`, [
        { path: 'member_ids', message: `not a member of the organization: ${strangers.join(', ')}` },
      ]);
    }
  };

  return {
    async list(actor: Actor): Promise<Team[]> {
      return teams.list(await access.resolveReadable(actor));
    },
    async get(actor: Actor, id: string): Promise<Team> {
      return findIn(await access.resolveReadable(actor), id);
    },
    async create(actor: Actor, input: CreateTeamInput): Promise<Team> {
      const organizationId = await access.resolveManaging(actor);
      await checkMembers(organizationId, input.member_ids);
      return teams.insert({ id: randomUUID(), organizationId, name: input.name, memberIds: input.member_ids });
    },
    async update(actor: Actor, id: string, input: UpdateTeamInput): Promise<Team> {
      const organizationId = await access.resolveManaging(actor);
      const current = await findIn(organizationId, id);
      await checkMembers(organizationId, input.member_ids);
      return teams.update(id, { name: input.name ?? current.name, memberIds: input.member_ids ?? current.members.map((m) => m.userId) });
    },
    async remove(actor: Actor, id: string): Promise<void> {
      const organizationId = await access.resolveManaging(actor);
      await findIn(organizationId, id);
      await teams.delete(id);
    },
  };
}

export type TeamsService = ReturnType<typeof createTeamsService>;
