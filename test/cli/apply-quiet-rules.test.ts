// Alert rules' quieter conditions in outpost.yaml: a selector (services by name, tags,
// environment, locations, check types) instead of one service, the recovery threshold,
// reminders, and alerts on missing data or offline agents. apply sends them, export writes
// what the server holds, and the exported file applies as a no-op.
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { runCli } from '../support/cli-process.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';

const SERVICES = `
services:
  - name: checkout
    check_type: http
    endpoint: http://127.0.0.1:9/
    environment: production
    tags: [payments]
    locations: [nowhere]
  - name: ledger
    check_type: tcp
    endpoint: 127.0.0.1:9
    locations: [nowhere]
`;

const file = (rules: string) => `${SERVICES}alert_rules:\n${rules}`;

const QUIET_RULES = `
  - name: payments down
    severity: critical
    selector:
      tags: [payments]
      environment: production
      check_types: [http]
    recovery_threshold: 3
    repeat_interval_minutes: 30
    no_data: true
  - name: ledger by name
    severity: warning
    selector:
      services: [ledger]
  - name: blind spots
    severity: critical
    agent_offline: true
    no_data: false
`;

interface Rule {
  id: string;
  name: string;
  service_id: string | null;
  condition: Record<string, unknown>;
}

describe('outpost apply and export: quiet alert rules', () => {
  let cp: TestControlPlane;
  let user: TestUser;
  let env: Record<string, string>;

  before(async () => {
    cp = await startTestControlPlane();
    user = await cp.api.newUser('cli-quiet-rules');
    env = { OUTPOST_URL: cp.baseUrl, OUTPOST_API_KEY: await cp.api.keyWithRole(user, 'member') };
  });
  after(() => cp?.stop());

  const apply = (text: string) => runCli(['apply', '-f', '-'], env, text);
  const rules = async () => (await cp.api.get('/alert-rules', user.token)).body as Rule[];
  const rule = async (name: string) => (await rules()).find((r) => r.name === name)!;
  const serviceId = async (name: string) => ((await cp.api.get('/services', user.token)).body as { id: string; name: string }[]).find((s) => s.name === name)!.id;

  it('creates rules by selector with a recovery threshold, reminders, no-data and offline alerts', async () => {
    const run = await apply(file(QUIET_RULES));
    expect(run.code, run.stderr).to.equal(0);

    const payments = await rule('payments down');
    expect(payments.service_id).to.equal(null);
    expect(payments.condition).to.deep.include({
      selector: { tags: ['payments'], environment: 'production', check_types: ['HTTP'] },
      recovery_threshold: 3,
      repeat_interval_minutes: 30,
      no_data: true,
    });
    expect((await rule('ledger by name')).condition.selector).to.deep.equal({ service_ids: [await serviceId('ledger')] });
    const blind = await rule('blind spots');
    expect(blind.condition).to.include({ agent_offline: true });
    expect(blind.condition, 'false is not sent').to.not.have.property('no_data');
  });

  it('exports them with services by name, and the export applies as a no-op', async () => {
    const exported = await runCli(['export'], env);
    expect(exported.code, exported.stderr).to.equal(0);
    expect(exported.stdout).to.contain('    selector:\n      services:\n        - ledger\n');
    expect(exported.stdout).to.contain('recovery_threshold: 3').and.to.contain('repeat_interval_minutes: 30').and.to.contain('agent_offline: true');
    expect(exported.stdout, 'no false flag is written').to.not.contain('no_data: false');
    const round = await apply(exported.stdout);
    expect(round.code, round.stderr).to.equal(0);
    expect(round.stdout.trim()).to.equal('No changes: the organization matches the file.');
    expect((await apply(file(QUIET_RULES))).stdout.trim(), 'no_data: false is what the server holds').to.equal('No changes: the organization matches the file.');
  });

  it('moves a rule from a selector to one service and back, and drops a reminder the file no longer names', async () => {
    const toService = QUIET_RULES.replace('    selector:\n      services: [ledger]\n', '    service: ledger\n');
    const run = await apply(file(toService));
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain('~ update alert rule "ledger by name"\n    service: null -> "ledger"\n    selector: {"services":["ledger"]} -> null');
    const moved = await rule('ledger by name');
    expect(moved.service_id).to.equal(await serviceId('ledger'));
    expect(moved.condition).to.not.have.property('selector');

    const back = await apply(file(QUIET_RULES.replace('    repeat_interval_minutes: 30\n', '')));
    expect(back.code, back.stderr).to.equal(0);
    expect(back.stdout).to.contain('    repeat_interval_minutes: 30 -> null');
    expect((await rule('ledger by name')).service_id).to.equal(null);
    expect((await rule('payments down')).condition).to.not.have.property('repeat_interval_minutes');
  });

  it('refuses service and selector together, an empty selector, and a selector naming no service, naming their lines', async () => {
    const both = file('  - name: both\n    severity: info\n    service: ledger\n    selector:\n      tags: [payments]\n');
    const run = await apply(both);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.match(/stdin:\d+:\d+: .*alert_rules\.0\.selector.*give service or selector, not both/);

    const empty = await apply(file('  - name: empty\n    severity: info\n    selector: {}\n'));
    expect(empty.code).to.equal(1);
    expect(empty.stderr).to.contain('name at least one of services, tags, environment, locations or check_types');

    const unknown = file('  - name: ghost\n    severity: info\n    selector:\n      services: [nobody]\n');
    const ghost = await apply(unknown);
    expect(ghost.code).to.equal(1);
    const line = unknown.split('\n').findIndex((l) => l.includes('nobody')) + 1;
    expect(ghost.stderr).to.contain(`stdin:${line}:`).and.to.contain('no service or heartbeat named "nobody"');
    const names = (await rules()).map((r) => r.name);
    for (const refused of ['both', 'empty', 'ghost']) expect(names, `${refused} was not applied`).to.not.include(refused);
  });
});
