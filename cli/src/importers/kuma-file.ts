// Which Uptime Kuma file this is, by its content rather than its name: an SQLite database
// (kuma.db) or a version 1 JSON backup.
import { isKumaBackup, readKumaBackup } from './kuma-backup.js';
import type { KumaData } from './kuma-data.js';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

export class NotKumaFileError extends Error {}

export async function readKumaFile(bytes: Buffer): Promise<KumaData> {
  if (bytes.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) {
    // sql.js is loaded only for a database.
    const { readKumaDatabase } = await import('./kuma-sqlite.js');
    try {
      return await readKumaDatabase(bytes);
    } catch (err) {
      throw new NotKumaFileError((err as Error).message);
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new NotKumaFileError('it is neither an SQLite database (kuma.db) nor JSON (an Uptime Kuma 1.x backup)');
  }
  if (!isKumaBackup(json)) throw new NotKumaFileError('it is JSON without monitorList and notificationList: not an Uptime Kuma backup');
  return readKumaBackup(json);
}
