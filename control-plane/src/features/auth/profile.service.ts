// The acting user's own profile: name and e-mail, and a password change that needs the
// current password and ends every other session of the user.
import { AppError, notFound } from '../../errors.js';
import type { Actor } from './actor.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import type { PasswordHasher } from './password-hasher.js';
import type { ProfileRepository, Profile } from './profile.repository.js';

export interface ProfileChanges {
  full_name?: string;
  email?: string;
  password?: string;
  current_password?: string;
}

export function createProfileService(profiles: ProfileRepository, hasher: PasswordHasher, sessions: Pick<SessionsService, 'endAllOfUser'>) {
  const load = async (userId: string) => {
    const profile = await profiles.find(userId);
    if (!profile) throw notFound('user');
    return profile;
  };
  return {
    get: (actor: Actor): Promise<Profile> => load(actor.userId),
    async update(actor: Actor, changes: ProfileChanges): Promise<Profile> {
      if (actor.apiKey) throw new AppError('FORBIDDEN', 'an API key cannot change its creator\'s profile');
      let passwordHash: string | undefined;
      if (changes.password !== undefined) {
        const stored = await profiles.passwordHash(actor.userId);
        if (!changes.current_password || !stored || !(await hasher.verify(stored, changes.current_password))) {
          throw new AppError('FORBIDDEN', 'the current password is wrong or missing');
        }
        passwordHash = await hasher.hash(changes.password);
      }
      await profiles.update(actor.userId, { fullName: changes.full_name, email: changes.email, passwordHash });
      // Whoever knew the old password is signed out; the device that changed it stays signed in.
      if (passwordHash) await sessions.endAllOfUser(actor.userId, actor.sessionId);
      return load(actor.userId);
    },
  };
}

export type ProfileService = ReturnType<typeof createProfileService>;
