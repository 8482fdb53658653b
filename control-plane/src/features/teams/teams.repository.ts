// Teams: named groups of an organization's members, who can be told about alerts by e-mail.
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUniqueViolation } from '../../db/pg-errors.js';
import type { Tx } from '../../db/tx.js';
import { AppError } from '../../errors.js';

export interface TeamMember {
  userId: string;
  email: string;
  fullName: string;
}

export interface Team {
  id: string;
  organizationId: string;
  name: string;
  members: TeamMember[];
  createdAt: Date;
  updatedAt: Date;
}

export interface TeamsRepository {
  insert(team: { id: string; organizationId: string; name: string; memberIds: string[] }): Promise<Team>;
  find(organizationId: string, id: string): Promise<Team | null>;
  list(organizationId: string): Promise<Team[]>;
  update(id: string, fields: { name: string; memberIds: string[] }): Promise<Team>;
  delete(id: string): Promise<void>;
  /** The ids among `userIds` that are not members of the organization. */
  strangers(organizationId: string, userIds: string[]): Promise<string[]>;
  /** The e-mail addresses of each team's members who still belong to the team's organization. */
  memberEmails(tx: Tx, teamIds: string[]): Promise<Map<string, { organizationId: string; emails: string[] }>>;
}

const nameTaken = (name: string) => new AppError('CONFLICT', `a team named "${name}" already exists`);

const SELECT = `select t.id, t.organization_id, t.name, t.created_at, t.updated_at,
    coalesce((select json_agg(json_build_object('userId', u.id, 'email', u.email, 'fullName', u.full_name) order by lower(u.email))
                from team_members tm join users u on u.id = tm.user_id where tm.team_id = t.id), '[]') as members
  from teams t`;

export function createTeamsRepository(em: () => EntityManager, transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>): TeamsRepository {
  const run = (sql: string, params: unknown[], tx: EntityManager = em()) => tx.execute<Record<string, unknown>[]>(sql, params);

  async function write(name: string, work: (tx: Tx) => Promise<void>): Promise<void> {
    try {
      await transaction(work);
    } catch (err) {
      if (isUniqueViolation(err, 'teams_organization_name_key')) throw nameTaken(name);
      throw err;
    }
  }

  async function replaceMembers(tx: Tx, teamId: string, memberIds: string[]): Promise<void> {
    await run('delete from team_members where team_id = ?', [teamId], tx);
    if (memberIds.length === 0) return;
    await run(`insert into team_members (team_id, user_id) values ${memberIds.map(() => '(?, ?)').join(',')}`, memberIds.flatMap((id) => [teamId, id]), tx);
  }

  const find = async (where: string, params: unknown[]) => {
    const [row] = await run(`${SELECT} where ${where}`, params);
    return row ? fromRow(row) : null;
  };

  return {
    async insert(t) {
      await write(t.name, async (tx) => {
        await run('insert into teams (id, organization_id, name) values (?, ?, ?)', [t.id, t.organizationId, t.name], tx);
        await replaceMembers(tx, t.id, t.memberIds);
      });
      return (await find('t.id = ?', [t.id]))!;
    },
    find: (organizationId, id) => find('t.id = ? and t.organization_id = ?', [id, organizationId]),
    async list(organizationId) {
      return (await run(`${SELECT} where t.organization_id = ? order by lower(t.name), t.id`, [organizationId])).map(fromRow);
    },
    async update(id, t) {
      await write(t.name, async (tx) => {
        await run('update teams set name = ?, updated_at = now() where id = ?', [t.name, id], tx);
        await replaceMembers(tx, id, t.memberIds);
      });
      return (await find('t.id = ?', [id]))!;
    },
    async delete(id) {
      await run('delete from teams where id = ?', [id]);
    },
    async strangers(organizationId, userIds) {
      if (userIds.length === 0) return [];
      const rows = await run(`select user_id from memberships where organization_id = ? and user_id in (${userIds.map(() => '?').join(',')})`, [organizationId, ...userIds]);
      const members = new Set(rows.map((r) => String(r.user_id)));
      return userIds.filter((id) => !members.has(id));
    },
    async memberEmails(tx, teamIds) {
      const rows = await run(
        `select t.id, t.organization_id, coalesce(array_agg(distinct u.email) filter (where u.email is not null), '{}') as emails
           from teams t
           left join team_members tm on tm.team_id = t.id
           left join memberships m on m.organization_id = t.organization_id and m.user_id = tm.user_id
           left join users u on u.id = m.user_id
          where t.id = any(?::uuid[]) group by t.id`,
        [`{${teamIds.join(',')}}`],
        tx,
      );
      return new Map(rows.map((r) => [String(r.id), { organizationId: String(r.organization_id), emails: r.emails as string[] }]));
    },
  };
}

function fromRow(r: Record<string, unknown>): Team {
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    name: String(r.name),
    members: (typeof r.members === 'string' ? JSON.parse(r.members) : r.members) as TeamMember[],
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}
