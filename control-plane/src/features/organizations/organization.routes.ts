import Router from '@koa/router';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
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

const OrganizationJson = z
  .object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string(),
    plan: z.string(),
    role: role.meta({ description: "The caller's role in it" }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'Organization' });
const OrganizationTokenJson = z.object({ token: z.string(), user_id: z.uuid(), org_id: z.uuid(), role, expires_at: z.iso.datetime() });
const MemberJson = z
  .object({ user_id: z.uuid(), email: z.string(), full_name: z.string(), role, joined_at: z.iso.datetime() })
  .meta({ id: 'Member' });

export const organizationOperations: ApiOperation[] = [
  { method: 'get', path: '/organization', tag: 'Organization', summary: 'Read the organization the credential acts in', responses: { 200: OrganizationJson } },
  {
    method: 'put', path: '/organization', tag: 'Organization', summary: 'Change its name, slug or plan (owner)',
    body: UpdateOrganizationInput, responses: { 200: OrganizationJson }, errors: [409],
  },
  { method: 'get', path: '/organizations', tag: 'Organization', summary: 'Every organization you are a member of', responses: { 200: z.array(OrganizationJson) } },
  {
    method: 'post', path: '/organizations/:id/token', tag: 'Organization', summary: 'A token that acts in another of your organizations',
    params: { id: OrganizationId }, body: OrganizationTokenInput, bodyOptional: true, responses: { 200: OrganizationTokenJson },
  },
  { method: 'get', path: '/members', tag: 'Members', summary: 'List members', responses: { 200: z.array(MemberJson) } },
  {
    method: 'post', path: '/members', tag: 'Members', summary: 'Add a registered user by e-mail (admin)',
    body: AddMemberInput, responses: { 201: MemberJson }, errors: [404, 409],
  },
  {
    method: 'put', path: '/members/:userId', tag: 'Members', summary: "Change a member's role (admin)",
    params: { userId: UserId }, body: ChangeRoleInput, responses: { 200: MemberJson }, errors: [409],
  },
  { method: 'delete', path: '/members/:userId', tag: 'Members', summary: 'Remove a member (admin)', params: { userId: UserId }, responses: { 204: null }, errors: [409] },
];

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
    ctx.body = toTokenJson(await organizations.tokenFor(actorOf(ctx), organizationId, ctx.ip));
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
