import { z } from 'zod';

const email = z
  .string({ message: 'email must be a string' })
  .trim()
  .toLowerCase()
  .max(254, 'email must be at most 254 characters')
  .pipe(z.email({ message: 'email must be a valid e-mail address' }));

export const RegisterInput = z.object({
  email,
  password: z
    .string({ message: 'password must be a string' })
    .min(8, 'password must be at least 8 characters')
    .max(256, 'password must be at most 256 characters'),
  full_name: z
    .string({ message: 'full_name must be a string' })
    .trim()
    .min(1, 'full_name must not be empty')
    .max(200, 'full_name must be at most 200 characters'),
});
export type RegisterInput = z.infer<typeof RegisterInput>;

export const LoginInput = z.object({
  email,
  password: z.string({ message: 'password must be a string' }).min(1, 'password must not be empty').max(256),
});
export type LoginInput = z.infer<typeof LoginInput>;

export const RegisteredJson = z.object({ message: z.literal('user registered'), user_id: z.uuid(), org_id: z.uuid() });
