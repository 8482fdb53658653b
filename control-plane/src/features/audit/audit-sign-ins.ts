// Records the public routes that grant or try access: a password sign-in, a failed one (the
// e-mail tried, never the password; the organization only when the e-mail is a user's), and a
// registration. Sign-ins made elsewhere (single sign-on, a second factor's step, a passkey)
// are recorded by their features; a request whose feature recorded its own row gets none here.
import type { Context, Next } from 'koa';
import { AppError } from '../../errors.js';
import type { AuditEntry, RequestAuditTrail } from './audit-trail.js';
import { recordOrFail } from './record-or-fail.js';

/** The user an e-mail belongs to, and the organization a sign-in of it lands in. */
export type FindAccount = (email: string) => Promise<{ userId: string; organizationId: string | null } | null>;

const ROUTES: Record<string, 'login' | 'register'> = { '/api/v1/auth/login': 'login', '/api/v1/auth/register': 'register' };

type Json = Record<string, unknown>;

export function auditSignIns({ trail, findAccount }: { trail: RequestAuditTrail; findAccount: FindAccount }) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const route = ctx.method === 'POST' ? ROUTES[ctx.path] : undefined;
    if (!route) return next();
    let failure: unknown;
    const recordedByFeature = await trail.track(async () => {
      try {
        await next();
      } catch (err) {
        failure = err;
      }
    });
    const request = (ctx.request.body ?? {}) as Json;
    const email = typeof request.email === 'string' ? request.email.trim().toLowerCase().slice(0, 254) : null;
    const entry =
      recordedByFeature.size > 0 ? null : route === 'register' ? registered(ctx, email) : failure === undefined ? signedIn(ctx, email) : await failedSignIn(failure, email, findAccount);
    if (entry) await recordOrFail(trail, [{ ...entry, address: ctx.ip || null }], ctx.state.log);
    if (failure !== undefined) throw failure;
  };
}

type Unplaced = Omit<AuditEntry, 'address'>;

function signedIn(ctx: Context, email: string | null): Unplaced | null {
  const body = ctx.body as Json | undefined;
  // {mfa_required, mfa_token}: not signed in yet; the second factor's step records the sign-in.
  if (ctx.status !== 200 || typeof body?.token !== 'string' || typeof body.user_id !== 'string') return null;
  return {
    organizationId: typeof body.org_id === 'string' ? body.org_id : null,
    actor: { userId: body.user_id, email },
    action: 'sign_in',
    resource: 'session',
    resourceId: typeof body.session_id === 'string' ? body.session_id : null,
    after: { method: 'password' },
  };
}

async function failedSignIn(failure: unknown, email: string | null, findAccount: FindAccount): Promise<Unplaced | null> {
  if (!(failure instanceof AppError) || failure.code !== 'UNAUTHENTICATED' || !email) return null;
  const account = await findAccount(email);
  return {
    organizationId: account?.organizationId ?? null,
    actor: { userId: account?.userId ?? null, email },
    action: 'sign_in_failed',
    resource: 'session',
    resourceId: null,
    after: { method: 'password' },
  };
}

function registered(ctx: Context, email: string | null): Unplaced | null {
  const body = ctx.body as Json | undefined;
  if (ctx.status !== 201 || typeof body?.user_id !== 'string') return null;
  const organizationId = typeof body.org_id === 'string' ? body.org_id : null;
  const fullName = (ctx.request.body as Json).full_name;
  return {
    organizationId,
    actor: { userId: body.user_id, email },
    action: 'register',
    resource: 'user',
    resourceId: body.user_id,
    after: { email, full_name: typeof fullName === 'string' ? fullName.trim() : null, organization_id: organizationId },
  };
}
