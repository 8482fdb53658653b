// `outpost-agent install` / `uninstall`: the agent as a systemd service. Writes the unit
// (from deploy/systemd/outpost-agent.service), an environment file holding the token that
// only root and the agent's user can read, and the data directory; creates the system
// user. --dry-run prints all of it instead (token masked); --root installs under a folder.
// From the Debian package (deploy/debian), the package already holds the unit, the user and
// the data directory: install only fills in the environment file and starts the service.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT, PACKAGED_INSTALL_DIR } from '../version.js';
import { UsageError } from './usage-error.js';

export interface InstallFlags {
  server: string;
  token: string;
  location: string;
  dataDir: string;
  user: string;
  root: string;
  ca?: string;
  insecure?: boolean;
  dryRun?: boolean;
}

export const UNIT_PATH = '/etc/systemd/system/outpost-agent.service';
export const ENV_PATH = '/etc/outpost-agent/agent.env';
/** What the package's unit fixes (User=, StateDirectory=). */
export const PACKAGED_USER = 'outpost-agent';
export const PACKAGED_DATA_DIR = '/var/lib/outpost-agent';

/** Where this agent runs from: the Debian package, or a checkout (dist/ beside deploy/). */
export type InstallMode = 'package' | 'checkout';
const currentMode: InstallMode = PACKAGED_INSTALL_DIR ? 'package' : 'checkout';

export function renderUnit(flags: Pick<InstallFlags, 'dataDir' | 'user'>): string {
  const template = readFileSync(path.join(PACKAGE_ROOT, 'deploy/systemd/outpost-agent.service'), 'utf8');
  const cli = path.join(PACKAGE_ROOT, 'dist/agent/src/cli.js');
  return template
    .replace(/^ExecStart=.*$/m, `ExecStart=${process.execPath} ${cli} run`)
    .replace(/^User=.*$/m, `User=${flags.user}`)
    .replace(/^Group=.*$/m, `Group=${flags.user}`)
    .replace(/^EnvironmentFile=.*$/m, `EnvironmentFile=${ENV_PATH}`)
    .replace(/^Environment=OUTPOST_DATA_DIR=.*$/m, `Environment=OUTPOST_DATA_DIR=${flags.dataDir}`);
}

export function renderEnvironment(flags: Pick<InstallFlags, 'server' | 'token' | 'location' | 'ca' | 'insecure'>): string {
  const lines = [`OUTPOST_SERVER=${flags.server}`, `OUTPOST_TOKEN=${flags.token}`, `OUTPOST_LOCATION=${flags.location}`];
  if (flags.ca) lines.push(`OUTPOST_CA=${flags.ca}`);
  if (flags.insecure) lines.push('OUTPOST_INSECURE=true');
  return `${lines.join('\n')}\n`;
}

/**
 * The environment file with these settings replaced (or appended) and every other line kept:
 * the package's comments, and settings an operator added (OUTPOST_STATUS_ADDR, HTTPS_PROXY...).
 * A setting given as undefined is left as it is; null removes it.
 */
export function mergeEnvironment(existing: string, settings: Record<string, string | null | undefined>): string {
  const pending = new Map(Object.entries(settings).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const written = new Set<string>();
  const lines: string[] = [];
  for (const line of existing.split('\n')) {
    const key = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(line)?.[1];
    if (key && settings[key] === null) continue;
    if (key && pending.has(key)) {
      if (written.has(key)) continue;
      lines.push(`${key}=${pending.get(key)}`);
      written.add(key);
    } else {
      lines.push(line);
    }
  }
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  for (const [key, value] of pending) if (!written.has(key)) lines.push(`${key}=${value}`);
  return `${lines.join('\n')}\n`;
}

const systemdRunning = () => existsSync('/run/systemd/system');
const maskToken = (text: string, token: string) => text.replace(token, `${token.slice(0, 6)}…`);

/** The numeric id of a group in <root>/etc/group (the package's postinst made it there). */
function groupId(root: string, name: string): number | undefined {
  const file = path.join(root, 'etc/group');
  if (!existsSync(file)) return undefined;
  const entry = readFileSync(file, 'utf8').split('\n').find((line) => line.split(':')[0] === name);
  return entry ? Number(entry.split(':')[2]) : undefined;
}

export function install(flags: InstallFlags, print: (line: string) => void, mode: InstallMode = currentMode): number {
  return mode === 'package' ? installPackaged(flags, print) : installCheckout(flags, print);
}

function installPackaged(flags: InstallFlags, print: (line: string) => void): number {
  if (flags.user !== PACKAGED_USER || flags.dataDir !== PACKAGED_DATA_DIR) {
    throw new UsageError(`the packaged service runs as ${PACKAGED_USER} with its data in ${PACKAGED_DATA_DIR}: change that with a drop-in (systemctl edit outpost-agent), not --user or --data-dir`);
  }
  const file = path.join(flags.root, ENV_PATH);
  const existing = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const environment = mergeEnvironment(existing, { OUTPOST_SERVER: flags.server, OUTPOST_TOKEN: flags.token, OUTPOST_LOCATION: flags.location, OUTPOST_CA: flags.ca, OUTPOST_INSECURE: flags.insecure ? 'true' : null });
  const live = flags.root === '/';
  const start = 'systemctl enable outpost-agent && systemctl restart outpost-agent';
  if (flags.dryRun) {
    print(`# would write ${file} (0640, root:${PACKAGED_USER})\n${maskToken(environment, flags.token)}`);
    if (live) print(`# then: ${start}`);
    return 0;
  }
  const gid = groupId(flags.root, PACKAGED_USER);
  if (gid === undefined) throw new Error(`the group ${PACKAGED_USER} is missing: reinstall the package (apt install --reinstall outpost-agent)`);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o750 });
  writeFileSync(file, environment, { mode: 0o640 });
  chmodSync(file, 0o640);
  chownSync(file, -1, gid); // the owner stays root: only root runs this outside tests
  print(`wrote ${file}`);
  if (live && systemdRunning()) {
    // restart, not start: a running agent must pick up the new settings.
    execFileSync('systemctl', ['enable', 'outpost-agent'], { stdio: 'inherit' });
    execFileSync('systemctl', ['restart', 'outpost-agent'], { stdio: 'inherit' });
    print('outpost-agent is enabled and running with these settings (journalctl -u outpost-agent shows its log)');
  } else {
    print(`start it with: ${start}`);
  }
  return 0;
}

function installCheckout(flags: InstallFlags, print: (line: string) => void): number {
  const at = (p: string) => path.join(flags.root, p);
  const unit = renderUnit(flags);
  const environment = renderEnvironment(flags);
  const live = flags.root === '/';
  if (flags.dryRun) {
    print(`# would write ${at(UNIT_PATH)} (0644)\n${unit}`);
    print(`# would write ${at(ENV_PATH)} (0640, root:${flags.user})\n${maskToken(environment, flags.token)}`);
    print(`# would create ${at(flags.dataDir)} (0750, ${flags.user}:${flags.user})`);
    if (live) print(`# would create the system user ${flags.user} if missing, then: systemctl daemon-reload && systemctl enable --now outpost-agent`);
    return 0;
  }
  const uid = live ? ensureUser(flags.user, flags.dataDir) : undefined;
  mkdirSync(path.dirname(at(UNIT_PATH)), { recursive: true });
  writeFileSync(at(UNIT_PATH), unit, { mode: 0o644 });
  mkdirSync(path.dirname(at(ENV_PATH)), { recursive: true, mode: 0o750 });
  writeFileSync(at(ENV_PATH), environment, { mode: 0o640 });
  chmodSync(at(ENV_PATH), 0o640);
  mkdirSync(at(flags.dataDir), { recursive: true, mode: 0o750 });
  if (uid) {
    chownSync(at(ENV_PATH), 0, uid.gid);
    chownSync(at(flags.dataDir), uid.uid, uid.gid);
  }
  print(`wrote ${at(UNIT_PATH)}, ${at(ENV_PATH)} and ${at(flags.dataDir)}`);
  if (live && systemdRunning()) {
    execFileSync('systemctl', ['daemon-reload'], { stdio: 'inherit' });
    execFileSync('systemctl', ['enable', '--now', 'outpost-agent'], { stdio: 'inherit' });
    print('outpost-agent is enabled and started');
  } else {
    print('start it with: systemctl daemon-reload && systemctl enable --now outpost-agent');
  }
  return 0;
}

export function uninstall(flags: { root: string; dataDir: string; purge?: boolean }, print: (line: string) => void, mode: InstallMode = currentMode): number {
  const at = (p: string) => path.join(flags.root, p);
  if (mode === 'package') {
    // The package owns the unit, the settings and the data: apt removes them.
    if (flags.purge) throw new UsageError('the package keeps the token and the data: `apt purge outpost-agent` deletes them');
    if (flags.root === '/' && systemdRunning()) execFileSync('systemctl', ['disable', '--now', 'outpost-agent'], { stdio: 'inherit' });
    print('outpost-agent is stopped and disabled; `apt remove outpost-agent` removes it (keeping its settings and data), `apt purge outpost-agent` deletes those too');
    return 0;
  }
  if (flags.root === '/' && systemdRunning()) {
    execFileSync('systemctl', ['disable', '--now', 'outpost-agent'], { stdio: 'inherit' });
  }
  rmSync(at(UNIT_PATH), { force: true });
  rmSync(path.dirname(at(ENV_PATH)), { recursive: true, force: true });
  if (flags.purge) rmSync(at(flags.dataDir), { recursive: true, force: true });
  print(`removed ${at(UNIT_PATH)} and ${path.dirname(at(ENV_PATH))}${flags.purge ? ` and ${at(flags.dataDir)}` : ` (kept ${at(flags.dataDir)}; --purge removes it)`}`);
  return 0;
}

function ensureUser(user: string, home: string): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, user], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--home-dir', home, '--no-create-home', '--shell', '/usr/sbin/nologin', user]);
    return { uid: id('-u'), gid: id('-g') };
  }
}
