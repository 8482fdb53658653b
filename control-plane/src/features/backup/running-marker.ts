// DATA_DIR/control-plane.json: written by a control plane running on the embedded database,
// which only that process may open, so that admin commands on the same host know to ask it
// (a backup) or to refuse (a restore, a move to PostgreSQL) instead of opening the data folder.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const MARKER_FILE = 'control-plane.json';
const Marker = z.object({ pid: z.number().int().positive(), url: z.string() });
export type RunningControlPlaneMarker = z.infer<typeof Marker>;

/** Host to reach a server listening on `host` from this machine. */
const loopbackFor = (host: string) => (host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host);

export function writeRunningMarker(dataDir: string, host: string, port: number): () => void {
  const file = path.join(dataDir, MARKER_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify({ pid: process.pid, url: `http://${loopbackFor(host)}:${port}` }), { mode: 0o600 });
  renameSync(temporary, file);
  return () => rmSync(file, { force: true });
}

/** The running control plane of DATA_DIR, if its process is alive (a crash leaves the file behind). */
export function findRunningControlPlane(dataDir: string): RunningControlPlaneMarker | undefined {
  let marker: RunningControlPlaneMarker;
  try {
    marker = Marker.parse(JSON.parse(readFileSync(path.join(dataDir, MARKER_FILE), 'utf8')));
  } catch {
    return undefined;
  }
  try {
    process.kill(marker.pid, 0);
    return marker;
  } catch (err) {
    // EPERM: alive, but another user's.
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? marker : undefined;
  }
}
