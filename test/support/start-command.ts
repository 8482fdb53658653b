// How `npm start` and the control plane's systemd unit launch the control plane (environment
// and Node options), read from package.json and the unit, so that the memory benchmark measures
// the process as it is started and a test keeps the two in step.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = 'dist/control-plane/src/main.js';

export interface Launch {
  env: Record<string, string>;
  nodeOptions: string[];
}

/** The last command of package.json's start script: `[NAME=value ...] node [options] dist/control-plane/src/main.js`. */
export function npmStartLaunch(): Launch {
  const script = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = script.split('&&').at(-1)!.trim().split(/\s+/);
  const node = words.indexOf('node');
  if (node < 0 || words.at(-1) !== ENTRY) throw new Error(`the start script does not end with "node ... ${ENTRY}": ${script}`);
  return { env: assignments(words.slice(0, node)), nodeOptions: words.slice(node + 1, -1) };
}

/** The unit's `Environment=` lines (those that do not name the data folder) and the Node options of its ExecStart. */
export function systemdUnitLaunch(): Launch {
  const unit = readFileSync(path.join(root, 'deploy/systemd/outpost-control-plane.service'), 'utf8');
  const exec = /^ExecStart=\/usr\/bin\/env node (.*) \/opt\/outpost\/dist\/control-plane\/src\/main\.js$/m.exec(unit);
  if (!exec) throw new Error('the unit does not run node on /opt/outpost/dist/control-plane/src/main.js');
  const env = assignments([...unit.matchAll(/^Environment=(.*)$/gm)].map((m) => m[1]!));
  delete env.DATA_DIR;
  return { env, nodeOptions: exec[1]!.split(/\s+/) };
}

function assignments(words: string[]): Record<string, string> {
  return Object.fromEntries(
    words.map((word) => {
      const eq = word.indexOf('=');
      if (eq <= 0) throw new Error(`not a NAME=value assignment: ${word}`);
      return [word.slice(0, eq), word.slice(eq + 1)];
    }),
  );
}
