import type { EntityManager } from '@mikro-orm/postgresql';

export interface BackupRepository {
  /** True when the user is an owner of every organization of the installation (and there is one). */
  ownsEveryOrganization(userId: string): Promise<boolean>;
}

export function createBackupRepository(em: () => EntityManager): BackupRepository {
  return {
    async ownsEveryOrganization(userId) {
      const [row] = await em().getConnection().execute<{ owns: boolean }[]>(
        `select exists (select 1 from organizations) and not exists (
           select 1 from organizations o where not exists (
             select 1 from memberships m where m.organization_id = o.id and m.user_id = ? and m.role = 'owner')) as owns`,
        [userId],
      );
      return row?.owns === true;
    },
  };
}
