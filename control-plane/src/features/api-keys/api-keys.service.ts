// API keys (API.md): `op_<prefix>_<secret>`, shown once, stored as an argon2 hash, found by
// their prefix, accepted in place of a JWT with the key's role narrowed by its scopes (if any)
// until it expires (if ever), revoked by deletion. A
// verified key is remembered briefly so a busy client does not pay argon2 on every call.
import { randomBytes, randomUUID } from 'node:crypto';
import { AppError, notFound, validationFailed } from '../../errors.js';
import { allows, API_KEY_SCOPES } from './scopes.js';
import type { Actor } from '../auth/actor.js';
import type { PasswordHasher } from '../auth/password-hasher.js';
import type { Role } from '../organizations/membership.entity.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import { ROLE_RANK } from '../organizations/organization-access.js';
import type { ApiKey, ApiKeysRepository } from './api-keys.repository.js';
import type { VerifiedKeys } from './verified-keys.js';

const KEY = /^op_([A-Za-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

/**
 * `revoked` makes every replica forget a deleted key at once (this one's `verified` included)
 * before the deletion is answered.
 */
export function createApiKeysService(keys: ApiKeysRepository, hasher: PasswordHasher, access: OrganizationAccess, verified: VerifiedKeys, revoked: (keyId: string) => Promise<void>, now: () => Date) {
  return {
    isApiKey: (raw: string) => raw.startsWith('op_'),

    /** The actor an API key stands for; UNAUTHENTICATED when it is unknown or revoked. */
    async authenticate(raw: string): Promise<Actor> {
      let key = verified.get(raw);
      if (!key) {
        const match = KEY.exec(raw);
        const stored = match ? await keys.findByPrefix(match[1]!) : null;
        if (!stored || !(await hasher.verify(stored.keyHash, raw))) throw new AppError('UNAUTHENTICATED', 'the API key is invalid or revoked');
        key = stored;
        verified.remember(raw, key);
        void keys.touch(key.id).catch(() => undefined);
      }
      if (key.expiresAt && key.expiresAt.getTime() <= now().getTime()) throw new AppError('UNAUTHENTICATED', 'the API key has expired');
      return {
        userId: key.createdBy,
        email: '',
        organizationId: key.organizationId,
        apiKey: { id: key.id, role: key.role, scopes: key.scopes },
        ...(key.expiresAt && { expiresAt: key.expiresAt }),
      };
    },

    async create(actor: Actor, input: { name: string; role: Role; scopes?: string[] | null; expires_at?: Date | null }): Promise<{ key: ApiKey; secret: string }> {
      const organizationId = await access.resolveManaging(actor);
      const own = await access.roleIn(actor, organizationId);
      if (ROLE_RANK[input.role] > ROLE_RANK[own]) throw new AppError('FORBIDDEN', `a ${own} cannot create a key with the ${input.role} role`);
      // A key made by a scoped key carries no more than that key's scopes.
      const parentScopes = actor.apiKey?.scopes;
      const beyond = parentScopes && (input.scopes ?? API_KEY_SCOPES).filter((scope) => !allows(parentScopes, scope));
      if (beyond && beyond.length > 0) throw new AppError('FORBIDDEN', `this API key cannot grant the "${beyond[0]}" scope`);
      if (input.expires_at && input.expires_at.getTime() <= now().getTime()) {
        throw validationFailed('expires_at must be in the future', [{ path: 'expires_at', message: 'must be in the future' }]);
      }
      const prefix = randomBytes(9).toString('base64url').replace(/[-_]/g, 'x').slice(0, 12);
      const secret = `op_${prefix}_${randomBytes(32).toString('base64url')}`;
      const key = await keys.insert({ id: randomUUID(), organizationId, createdBy: actor.userId, name: input.name, role: input.role, prefix, scopes: input.scopes ?? null, expiresAt: input.expires_at ?? null, keyHash: await hasher.hash(secret) });
      return { key, secret };
    },

    async list(actor: Actor): Promise<ApiKey[]> {
      return keys.list(await access.resolveManaging(actor));
    },

    async get(actor: Actor, id: string): Promise<ApiKey> {
      const key = await keys.find(await access.resolveManaging(actor), id);
      if (!key) throw notFound('API key');
      return key;
    },

    async revoke(actor: Actor, id: string): Promise<void> {
      const organizationId = await access.resolveManaging(actor);
      if (!(await keys.find(organizationId, id))) throw notFound('API key');
      await keys.delete(id);
      await revoked(id);
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
