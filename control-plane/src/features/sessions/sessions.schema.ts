// The JSON of sessions, free of Koa so that the dashboard may import its types.
import { z } from 'zod';
import type { StartedSession } from './sessions.service.js';

export const SessionJson = z
  .object({
    token: z.string().meta({ description: 'A JWT for Authorization: Bearer, valid 72 h while its session lives' }),
    user_id: z.uuid(),
    org_id: z.uuid(),
    session_id: z.uuid(),
    refresh_token: z.string().meta({ description: 'Exchanged at POST /auth/refresh for a new token; each is used once' }),
    expires_at: z.iso.datetime().meta({ description: 'When `token` expires' }),
  })
  .meta({ id: 'Session' });

/** The answer of every successful sign-in, whichever way it was made. */
export function sessionAnswer(s: StartedSession): z.infer<typeof SessionJson> {
  return { token: s.token, user_id: s.userId, org_id: s.organizationId, session_id: s.sessionId, refresh_token: s.refreshToken, expires_at: s.expiresAt.toISOString() };
}
