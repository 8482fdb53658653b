// Requests and answers of the password reset: asking for a link, and using it.
import { z } from 'zod';
import { EmailAddress, NewPassword } from '../auth/auth.schema.js';

export const PasswordResetInput = z.strictObject({ email: EmailAddress });

export const CompletePasswordResetInput = z.strictObject({
  token: z.string({ message: 'token must be a string' }).min(1, 'token must not be empty').max(200, 'token must be at most 200 characters')
    .meta({ description: 'The token of the link in the mail' }),
  password: NewPassword,
});

export const PasswordResetAnswer = z.object({ message: z.string() }).meta({ id: 'PasswordResetAnswer' });
