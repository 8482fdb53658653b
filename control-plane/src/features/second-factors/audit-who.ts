// Who a second-factor event is recorded under in the audit trail: the signed-in user, or the
// user of a sign-in half made (password given, factor not yet).
import type { AuditEntry } from '../audit/audit-trail.js';

export type AuditWho = Pick<AuditEntry, 'organizationId' | 'actor' | 'address'>;

export const auditWho = (user: { id: string; email?: string }, organizationId: string | null, address: string): AuditWho => ({
  organizationId,
  actor: { userId: user.id, email: user.email ?? null },
  address,
});
