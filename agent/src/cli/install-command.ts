// `outpost-agent install` / `uninstall`: the agent as a systemd service. Writes the unit
// (from deploy/systemd/outpost-agent.service), an environment file holding the token that
// only root and the agent's user can read, and the data directory; creates the system
// user. --dry-run prints all of it instead (token masked); --root installs under a folder.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../version.js';

export interface InstallFlags {
  server: string;
  token: string;
  location: string;
  dataDir: string;
  user: string;
  root: string;
  ca?: string;
  dryRun?: boolean;
}

export const UNIT_PATH = '/etc/systemd/system/outpost-agent.service';
export const ENV_PATH = '/etc/outpost-agent/agent.env';

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

export function renderEnvironment(flags: Pick<InstallFlags, 'server' | 'token' | 'location' | 'ca'>): string {
  const lines = [`OUTPOST_SERVER=${flags.server}`, `OUTPOST_TOKEN=${flags.token}`, `OUTPOST_LOCATION=${flags.location}`];
  if (flags.ca) lines.push(`OUTPOST_CA=${flags.ca}`);
  return `${lines.join('\n')}\n`;
}

const systemdRunning = () => existsSync('/run/systemd/system');

export function install(flags: InstallFlags, print: (line: string) => void): number {
  const at = (p: string) => path.join(flags.root, p);
  const unit = renderUnit(flags);
  const environment = renderEnvironment(flags);
  const live = flags.root === '/';
  if (flags.dryRun) {
    print(`# would write ${at(UNIT_PATH)} (0644)\n${unit}`);
    print(`# would write ${at(ENV_PATH)} (0640, root:${flags.user})\n${environment.replace(flags.token, `${flags.token.slice(0, 6)}…`)}`);
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

export function uninstall(flags: { root: string; dataDir: string; purge?: boolean }, print: (line: string) => void): number {
  const at = (p: string) => path.join(flags.root, p);
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
