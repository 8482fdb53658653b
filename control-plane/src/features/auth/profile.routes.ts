import Router from '@koa/router';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput, readOnly } from '../../http/validate.js';
import type { Profile } from './profile.repository.js';
import type { ProfileService } from './profile.service.js';

export const UpdateProfileInput = z.strictObject({
  ...readOnly('id', 'created_at', 'organizations'),
  full_name: z.string({ message: 'full_name must be a string' }).trim().min(1).max(200).optional(),
  email: z.string({ message: 'email must be a string' }).trim().toLowerCase().pipe(z.email({ message: 'email must be an e-mail address' })).optional(),
  password: z.string({ message: 'password must be a string' }).min(8, 'password must be at least 8 characters').max(256).optional(),
  current_password: z.string().max(256).optional(),
});

const toProfileJson = (p: Profile) => ({ id: p.id, email: p.email, full_name: p.fullName, created_at: p.createdAt.toISOString(), organizations: p.organizations });

const ProfileJson = z
  .object({
    id: z.uuid(),
    email: z.string(),
    full_name: z.string(),
    created_at: z.iso.datetime(),
    organizations: z.array(z.object({ id: z.uuid(), name: z.string(), slug: z.string(), role: z.enum(['owner', 'admin', 'member', 'viewer']) })),
  })
  .meta({ id: 'Profile' });

export const profileOperations: ApiOperation[] = [
  { method: 'get', path: '/profile', tag: 'Profile', summary: 'Read your own profile', responses: { 200: ProfileJson } },
  {
    method: 'put', path: '/profile', tag: 'Profile', summary: 'Change your name, e-mail or password',
    description: 'A new password needs current_password; an e-mail already registered is a 409.',
    body: UpdateProfileInput, responses: { 200: ProfileJson }, errors: [409],
  },
];

export function profileRoutes(profiles: ProfileService): Router {
  const router = new Router({ prefix: '/profile' });
  router.get('/', async (ctx) => {
    ctx.body = toProfileJson(await profiles.get(actorOf(ctx)));
  });
  router.put('/', async (ctx) => {
    ctx.body = toProfileJson(await profiles.update(actorOf(ctx), parseInput(UpdateProfileInput, ctx.request.body)));
  });
  return router;
}
