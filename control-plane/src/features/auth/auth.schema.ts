import { z } from 'zod';

/** An e-mail address as every form takes it: trimmed, lower case. */
export const EmailAddress = z
  .string({ message: 'email must be a string' })
  .trim()
  .toLowerCase()
  .max(254, 'email must be at most 254 characters')
  .pipe(z.email({ message: 'email must be a valid e-mail address' }));

/** A password being chosen. */
export const NewPassword = z
  .string({ message: 'password must be a string' })
  .min(8, 'password must be at least 8 characters')
  .max(256, 'password must be at most 256 characters');

export const RegisterInput = z.object({
  email: EmailAddress,
  password: NewPassword,
  full_name: z
    .string({ message: 'full_name must be a string' })
    .trim()
    .min(1, 'full_name must not be empty')
    .max(200, 'full_name must be at most 200 characters'),
});
export type RegisterInput = z.infer<typeof RegisterInput>;

export const LoginInput = z.object({
  email: EmailAddress,
  password: z.string({ message: 'password must be a string' }).min(1, 'password must not be empty').max(256),
});
export type LoginInput = z.infer<typeof LoginInput>;

export const RegisteredJson = z.object({ message: z.literal('user registered'), user_id: z.uuid(), org_id: z.uuid() });
