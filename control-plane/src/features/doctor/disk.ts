// Free space on DATA_DIR's file system: the embedded database, secrets and the embedded
// agent's spool live there, and a full disk stops the database.
import { statfs } from 'node:fs/promises';
import path from 'node:path';
import { fail, GIB, humanBytes, MIB, ok, warn, type CheckResult } from './check.js';

export interface DiskSpace {
  /** Bytes an unprivileged process may still write. */
  free: number;
  total: number;
}

/** The file system holding `dir`, or its nearest existing parent when DATA_DIR is not made yet. */
export async function diskSpace(dir: string): Promise<DiskSpace> {
  let at = path.resolve(dir);
  for (;;) {
    try {
      const s = await statfs(at);
      return { free: s.bavail * s.bsize, total: s.blocks * s.bsize };
    } catch (err) {
      const parent = path.dirname(at);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === at) throw err;
      at = parent;
    }
  }
}

export function checkDisk(dir: string, space: DiskSpace): CheckResult {
  const share = space.total > 0 ? space.free / space.total : 0;
  const message = `${humanBytes(space.free)} free of ${humanBytes(space.total)} (${(share * 100).toFixed(1)}%) on the file system of ${dir}`;
  const fix = `Free space on the file system of ${dir} or move DATA_DIR to a larger one.`;
  if (share < 0.02 || space.free < 200 * MIB) return fail('disk', message, fix);
  if (share < 0.1 || space.free < GIB) return warn('disk', message, fix);
  return ok('disk', message);
}
