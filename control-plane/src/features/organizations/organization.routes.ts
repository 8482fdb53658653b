import Router from '@koa/router';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import { parseInput, readOnly } from '../../http/validate.js';
import type { Member, MemberOrganization } from './organization-admin.repository.js';
import type { OrganizationService, OrganizationToken } from './organization.service.js';

const role = z.enum(['owner', 'admin', 'member', 'viewer'], { message: 'role must be owner, admin, member or viewer' });
export const UpdateOrganizationInput = z.strictObject({
  ...readOnly('id', 'created_at', 'updated_at'),
  name: z.string({ message: 'name must be a string' }).trim().min(1).max(200).optional(),
  slug: z.string({ message: 'slug must be a string' }).regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'slug is lower-case letters, digits and dashes').optional(),
  plan: z.string({ message: 'plan must be a string' }).min(1).optional(),
});
export const AddMemberInput = z.strictObject({
  email: z.string({ message: 'email must be a string' }).trim().toLowerCase().pipe(z.email({ message: 'email must be an e-mail address' })),
  role: role.default('member'),
});
export const ChangeRoleInput = z.strictObject({ role });
/** Switching needs nothing but the path; an empty object is accepted for clients that always send one. */
export const OrganizationTokenInput = z.strictObject({});
const UserId = z.uuid({ message: 'user id must be a UUID' });
const OrganizationId = z.uuid({ message: 'organization id must be a UUID' });

const toOrganizationJson = (o: MemberOrganization) => ({
  id: o.id,
  name: o.name,
  slug: o.slug,
  plan: o.plan,
  role: o.role,
  created_at: o.createdAt.toISOString(),
  updated_at: o.updatedAt.toISOString(),
});
const toTokenJson = (t: OrganizationToken) => ({ token: t.token, user_id: t.userId, org_id: t.organizationId, role: t.role, expires_at: t.expiresAt.toISOString() });
const toMemberJson = (m: Member) => ({ user_id: m.userId, email: m.email, full_name: m.fullName, role: m.role, joined_at: m.joinedAt.toISOString() });

export function organizationRoutes(organizations: OrganizationService): Router[] {
  const organization = new Router({ prefix: '/organization' });
  organization.get('/', async (ctx) => {
    ctx.body = toOrganizationJson(await organizations.get(actorOf(ctx)));
  });
  organization.put('/', async (ctx) => {
    ctx.body = toOrganizationJson(await organizations.update(actorOf(ctx), parseInput(UpdateOrganizationInput, ctx.request.body)));
  });

  const all = new Router({ prefix: '/organizations' });
  all.get('/', async (ctx) => {
    ctx.body = (await organizations.list(actorOf(ctx))).map(toOrganizationJson);
  });
  all.post('/:id/token', async (ctx) => {
    const organizationId = parseInput(OrganizationId, ctx.params.id, 'organization id');
    if (ctx.request.body !== undefined) parseInput(OrganizationTokenInput, ctx.request.body);
    ctx.body = toTokenJson(await organizations.tokenFor(actorOf(ctx), organizationId));
  });

  const members = new Router({ prefix: '/members' });
  const userIdOf = (params: Record<string, string | undefined>) => parseInput(UserId, params.userId, 'user id');
  members.get('/', async (ctx) => {
    ctx.body = (await organizations.members(actorOf(ctx))).map(toMemberJson);
  });
  members.post('/', async (ctx) => {
    const input = parseInput(AddMemberInput, ctx.request.body);
    ctx.status = 201;
    ctx.body = toMemberJson(await organizations.addMember(actorOf(ctx), input));
  });
  members.put('/:userId', async (ctx) => {
    const userId = userIdOf(ctx.params);
    ctx.body = toMemberJson(await organizations.changeRole(actorOf(ctx), userId, parseInput(ChangeRoleInput, ctx.request.body).role));
  });
  members.delete('/:userId', async (ctx) => {
    await organizations.removeMember(actorOf(ctx), userIdOf(ctx.params));
    ctx.status = 204;
  });
  return [organization, all, members];
}
