// Backups taken by the running control plane: the dashboard's download, and `npm run admin --
// backup` on the embedded database, which no other process may open while this one runs.
import type { Writable } from 'node:stream';
import pg from 'pg';
import { AppError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Actor } from '../auth/actor.js';
import type { SealedKeys } from './archive-format.js';
import type { BackupRepository } from './backup.repository.js';
import { writeBackup, type BackupSummary } from './write-backup.js';

export interface BackupService {
  /** Only someone who owns every organization may take the whole installation home. */
  assertMayDownload(actor: Actor): Promise<void>;
  /** Writes a backup to `out`; one at a time. */
  write(out: Writable, options: { historyDays?: number; keys?: SealedKeys }): Promise<BackupSummary>;
}

export interface BackupServiceDeps {
  repository: BackupRepository;
  databaseUrl: string;
  embedded: boolean;
  version: string;
  logger: Logger;
}

export function createBackupService({ repository, databaseUrl, embedded, version, logger }: BackupServiceDeps): BackupService {
  let running = false;
  return {
    async assertMayDownload(actor) {
      if (actor.apiKey && actor.apiKey.role !== 'owner') throw new AppError('FORBIDDEN', 'a backup needs an owner\'s API key');
      if (!(await repository.ownsEveryOrganization(actor.userId))) {
        throw new AppError('FORBIDDEN', 'a backup holds every organization of the installation: only someone who owns all of them may download it');
      }
    },
    async write(out, options) {
      if (running) throw new AppError('CONFLICT', 'a backup is already being taken; try again when it has finished');
      running = true;
      // A connection of its own: the snapshot's transaction must not hold one of the pool's.
      const client = new pg.Client({ connectionString: databaseUrl });
      try {
        await client.connect();
        const started = Date.now();
        // On the embedded database this process's own statements share the one session with the snapshot.
        const summary = await writeBackup(client, out, { version, source: embedded ? 'embedded' : 'postgresql', resultsInChunks: embedded, historyDays: options.historyDays, keys: options.keys });
        logger.info({ ms: Date.now() - started, rows: Object.values(summary.tables).reduce((n, t) => n + t.rows, 0), keys: summary.keys }, 'backup taken');
        return summary;
      } finally {
        running = false;
        await client.end().catch(() => undefined);
      }
    },
  };
}
