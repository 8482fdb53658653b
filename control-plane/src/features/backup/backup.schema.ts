import { z } from 'zod';
import { SealedKeys } from './archive-format.js';

export const BackupRequest = z.strictObject({
  history_days: z.number().int().min(1).max(3650).optional().meta({ description: 'Leave out check results and minute rollups older than this many days.' }),
  keys: SealedKeys.optional().meta({ description: 'The keys sealed with a passphrase by `npm run admin -- backup --include-keys`, written into the archive as they are.' }),
});
export type BackupRequest = z.infer<typeof BackupRequest>;
