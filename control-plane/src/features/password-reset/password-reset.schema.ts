// Requests and answers of the password reset: asking for a link, and using it.
import { z } from 'zod';

export const PasswordResetInput = z.strictObject({
  email: z
    .string({ message: 'email must be a string' })
    .trim()
    .toLowerCase()
    .max(254, 'email must be at most 254 characters')
    .pipe(z.email({ message: 'email must be a valid e-mail address' })),
});

export const CompletePasswordResetInput = z.strictObject({
  token: z.string({ message: 'token must be a string' }).min(1, 'token must not be empty').max(200, 'token must be at most 200 characters')
    .meta({ description: 'The token of the link in the mail' }),
  password: z.string({ message: 'password must be a string' }).min(8, 'password must be at least 8 characters').max(256, 'password must be at most 256 characters'),
});

export const PasswordResetAnswer = z.object({ message: z.string() }).meta({ id: 'PasswordResetAnswer' });
