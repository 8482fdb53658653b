// Recurring maintenance windows in outpost.yaml: `outpost apply` creates them, switches a
// window between its one-off and recurring forms, and `outpost export` writes them back.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OutpostFile } from '../../cli/src/config-as-code/file-schema.js';
import type { TestUser } from '../support/api-client.js';
import { runCli } from '../support/cli-process.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';

const services = `
services:
  - name: db
    check_type: TCP
    endpoint: 127.0.0.1:9
`;
const windows = (patch: string, freeze: string) => `${services}maintenance_windows:
  - name: patch tuesday
${patch}
    services: [db]
  - name: freeze
${freeze}
`;
const weekly = '    schedule: "0 22 * * 2"\n    timezone: Europe/Berlin\n    duration_minutes: 120';
const once = '    starts_at: 2030-12-24T00:00:00Z\n    ends_at: 2030-12-27T00:00:00Z';

describe('outpost apply and export: recurring maintenance windows', () => {
  let cp: TestControlPlane;
  let user: TestUser;
  let dir: string;
  let env: Record<string, string>;

  const apply = (name: string, text: string, ...flags: string[]) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return runCli(['apply', '-f', file, ...flags], env);
  };
  const windowsByName = async () => {
    const r = await cp.api.get('/maintenance-windows', user.token);
    return Object.fromEntries((r.body as any[]).map((w) => [w.name, w]));
  };

  before(async () => {
    cp = await startTestControlPlane();
    user = await cp.api.newUser('cli-maintenance');
    dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-cli-maintenance-'));
    env = { OUTPOST_URL: cp.baseUrl, OUTPOST_API_KEY: await cp.api.keyWithRole(user, 'admin') };
  });
  after(async () => {
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('creates a recurring and a one-off window, then finds nothing to change', async () => {
    const first = await apply('first.yaml', windows(weekly, once));
    expect(first.code, first.stderr).to.equal(0);
    const made = await windowsByName();
    expect(made['patch tuesday']).to.include({ schedule: '0 22 * * 2', timezone: 'Europe/Berlin', duration_minutes: 120, starts_at: null, ends_at: null });
    expect(made['patch tuesday'].next_occurrences).to.have.length(5);
    expect(made.freeze).to.include({ schedule: null, starts_at: '2030-12-24T00:00:00.000Z' });

    const again = await apply('first.yaml', windows(weekly, once));
    expect(again.stdout.trim()).to.equal('No changes: the organization matches the file.');
  });

  it('switches each window to the other form in place, and changes one field of a form', async () => {
    const before = await windowsByName();
    const switched = await apply('switched.yaml', windows(once, '    schedule: "@monthly"\n    duration_minutes: 60'));
    expect(switched.code, switched.stderr).to.equal(0);
    const after = await windowsByName();
    expect(after['patch tuesday']).to.include({ id: before['patch tuesday'].id, schedule: null, timezone: null, duration_minutes: null, starts_at: '2030-12-24T00:00:00.000Z' });
    expect(after.freeze).to.include({ id: before.freeze.id, schedule: '@monthly', timezone: 'UTC', duration_minutes: 60, starts_at: null });

    const longer = await apply('longer.yaml', windows(once, '    schedule: "@monthly"\n    duration_minutes: 90'));
    expect(longer.code, longer.stderr).to.equal(0);
    expect(longer.stdout).to.contain('duration_minutes');
    expect((await windowsByName()).freeze).to.include({ schedule: '@monthly', duration_minutes: 90 });
  });

  it('exports the fields of each form, and the export applies as a no-op', async () => {
    await apply('weekly.yaml', windows(weekly, once));
    const exported = await runCli(['export'], env);
    expect(exported.code, exported.stderr).to.equal(0);
    expect(exported.stdout).to.contain('schedule: 0 22 * * 2').and.to.contain('timezone: Europe/Berlin').and.to.contain('duration_minutes: 120');
    expect(exported.stdout).not.to.contain('next_occurrences');
    const round = await runCli(['apply', '-f', '-', '--prune'], env, exported.stdout);
    expect(round.code, round.stderr).to.equal(0);
    expect(round.stdout.trim()).to.equal('No changes: the organization matches the file.');
  });

  it('refuses a window with both forms or half of one, naming the field, before sending anything', async () => {
    const before = await windowsByName();
    const mixed = await apply('mixed.yaml', windows(`${weekly}\n    starts_at: 2030-01-01T00:00:00Z`, once));
    expect(mixed.code).to.equal(1);
    expect(mixed.stderr).to.contain('maintenance_windows.0').and.to.contain('not both');
    expect(await windowsByName()).to.deep.equal(before);

    const parse = (window: Record<string, unknown>) => OutpostFile.safeParse({ maintenance_windows: [{ name: 'w', ...window }] });
    const problem = (window: Record<string, unknown>) => parse(window).error?.issues.map((i) => i.path.join('.'));
    expect(problem({ schedule: '0 3 * * *' })).to.deep.equal(['maintenance_windows.0.duration_minutes']);
    expect(problem({ starts_at: '2030-01-01T00:00:00Z' })).to.deep.equal(['maintenance_windows.0.ends_at']);
    expect(problem({ duration_minutes: 10_081, schedule: '0 3 * * *' })).to.deep.equal(['maintenance_windows.0.duration_minutes']);
    expect(parse({ schedule: '0 3 * * *', duration_minutes: 30 }).data?.maintenance_windows[0]).to.include({ timezone: 'UTC' });
  });
});
