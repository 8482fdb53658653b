import Router from '@koa/router';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
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
