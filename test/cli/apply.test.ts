// `outpost apply` and `outpost export` as a user runs them: the CLI as its own process
// against a real control plane, the organization read back through the API.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestUser } from '../support/api-client.js';
import { runCli } from '../support/cli-process.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';

// Status page slugs are unique across organizations (they make public URLs).
const SLUG = `acme-${randomBytes(4).toString('hex')}`;

interface Knobs {
  webInterval?: number;
  withWindow?: boolean;
}

// Secrets are block scalars: "${...}" in a flow mapping would be YAML flow syntax.
const outpostYaml = ({ webInterval = 60, withWindow = true }: Knobs = {}) => `
services:
  - name: web
    check_type: http
    endpoint: http://127.0.0.1:9/
    check_interval_seconds: ${webInterval}
    tags: [frontend, public]
    depends_on: [db, nightly backup]
    options:
      method: HEAD
  - name: db
    check_type: SSH
    endpoint: 127.0.0.1:9
    options:
      username: monitor
      password: \${DB_PASSWORD}
heartbeats:
  - name: nightly backup
    interval_seconds: 86400
notification_channels:
  - name: ops hook
    type: webhook
    config:
      url: http://127.0.0.1:9/hook
      secret: \${HOOK_SECRET}
  - name: oncall
    type: email
    config:
      to: oncall@example.com
alert_rules:
  - name: web down
    service: web
    severity: critical
    consecutive_failures: 2
    channels: [ops hook]
  - name: backup late
    service: nightly backup
    severity: warning
${
  withWindow
    ? `maintenance_windows:
  - name: upgrade
    starts_at: 2030-01-01T00:00:00Z
    ends_at: 2030-01-01T02:00:00Z
    services: [web]
`
    : ''
}status_pages:
  - slug: ${SLUG}
    title: Acme status
    services: [web, nightly backup]
`;

describe('outpost apply and export', () => {
  let cp: TestControlPlane;
  let user: TestUser;
  let dir: string;
  let env: Record<string, string>;
  const secrets = { DB_PASSWORD: 'db-password-1', HOOK_SECRET: 'hook-secret-abcd' };

  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const get = async (p: string) => {
    const r = await cp.api.get(p, user.token);
    expect(r.status, r.text).to.equal(200);
    return r.body as any[];
  };
  /** Everything apply manages, with the timestamps that show whether it was touched. */
  const snapshot = async () => ({
    services: await get('/services'),
    channels: await get('/notification-channels'),
    rules: await get('/alert-rules'),
    windows: await get('/maintenance-windows'),
    pages: await get('/status-pages'),
    heartbeats: await get('/heartbeats'),
  });
  const apply = async (file: string, ...flags: string[]) => runCli(['apply', '-f', file, ...flags], { ...env, ...secrets });

  before(async () => {
    cp = await startTestControlPlane();
    user = await cp.api.newUser('cli-apply');
    dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-cli-'));
    env = { OUTPOST_URL: cp.baseUrl, OUTPOST_API_KEY: await cp.api.keyWithRole(user, 'admin') };
  });

  after(async () => {
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('creates what the file names in an empty organization, with references resolved to ids', async () => {
    const run = await apply(write('first.yaml', outpostYaml()));
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain('Plan: 9 to create, 0 to update, 0 to replace, 0 to delete.');

    const now = await snapshot();
    const byName = (rows: any[], name: string) => rows.find((r) => r.name === name);
    const web = byName(now.services, 'web');
    expect(web).to.include({ check_type: 'HTTP', check_interval_seconds: 60 });
    expect(web.tags).to.have.members(['frontend', 'public']);
    expect(byName(now.services, 'db').options).to.deep.equal({ username: 'monitor', password: '********' });
    const hook = byName(now.channels, 'ops hook');
    expect(hook.config.secret).to.equal('****abcd');
    const heartbeat = byName(now.heartbeats, 'nightly backup');
    expect(web.depends_on, 'named before they existed, sent once they do').to.deep.equal([byName(now.services, 'db').id, heartbeat.service_id]);
    expect(byName(now.rules, 'web down')).to.deep.include({ service_id: web.id, severity: 'critical' });
    expect(byName(now.rules, 'web down').condition).to.deep.include({ consecutive_failures: 2, channel_ids: [hook.id] });
    expect(byName(now.rules, 'backup late').service_id).to.equal(heartbeat.service_id);
    expect(byName(now.windows, 'upgrade').service_ids).to.deep.equal([web.id]);
    expect(now.pages[0]).to.deep.include({ slug: SLUG, service_ids: [web.id, heartbeat.service_id] });
  });

  it('changes nothing on a second apply of the same file', async () => {
    const before = await snapshot();
    const run = await apply(path.join(dir, 'first.yaml'));
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain('No changes');
    expect(await snapshot()).to.deep.equal(before);
  });

  it('applies only the edited field of the edited resource', async () => {
    const before = await snapshot();
    const run = await apply(write('edited.yaml', outpostYaml({ webInterval: 30 })));
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain('~ update service "web"\n    check_interval_seconds: 60 -> 30\nPlan: 0 to create, 1 to update');

    const after = await snapshot();
    const web = after.services.find((s) => s.name === 'web');
    expect(web.check_interval_seconds).to.equal(30);
    // Everything else, the other service's updated_at included, is as it was.
    expect({ ...after, services: after.services.filter((s) => s.name !== 'web') }).to.deep.equal({
      ...before,
      services: before.services.filter((s) => s.name !== 'web'),
    });
  });

  it('sees a changed secret through the mask and sends it', async () => {
    const run = await runCli(['apply', '-f', path.join(dir, 'edited.yaml')], { ...env, ...secrets, HOOK_SECRET: 'hook-secret-wxyz' });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain('~ update notification channel "ops hook"');
    expect(run.stdout).not.to.contain('hook-secret');
    const hook = (await get('/notification-channels')).find((c) => c.name === 'ops hook');
    expect(hook.config.secret).to.equal('****wxyz');
    expect((await apply(path.join(dir, 'edited.yaml'))).stdout).to.contain('update notification channel "ops hook"');
    expect((await apply(path.join(dir, 'edited.yaml'))).stdout).to.contain('No changes');
  });

  it('deletes what the file no longer names only with --prune', async () => {
    const file = write('pruned.yaml', outpostYaml({ webInterval: 30, withWindow: false }));
    const kept = await apply(file);
    expect(kept.code, kept.stderr).to.equal(0);
    expect(kept.stdout).to.contain('No changes').and.to.contain('maintenance window "upgrade"');
    expect(await get('/maintenance-windows')).to.have.length(1);

    const dry = await apply(file, '--prune', '--dry-run');
    expect(dry.stdout).to.contain('- delete maintenance window "upgrade"').and.not.to.contain('Applied');
    expect(await get('/maintenance-windows')).to.have.length(1);

    const pruned = await apply(file, '--prune');
    expect(pruned.code, pruned.stderr).to.equal(0);
    expect(pruned.stdout).to.contain('deleted maintenance window "upgrade"');
    expect(await get('/maintenance-windows')).to.deep.equal([]);
  });

  it('exports a file that applies as a no-op, with secrets as ${ENV} references', async () => {
    const exported = await runCli(['export'], env);
    expect(exported.code, exported.stderr).to.equal(0);
    expect(exported.stdout).to.contain('password: ${DB_PASSWORD}').and.to.contain('secret: ${OPS_HOOK_SECRET}');
    for (const secret of [...Object.values(secrets), 'hook-secret-wxyz', '****']) expect(exported.stdout).not.to.contain(secret);

    const before = await snapshot();
    // Without the secrets in the environment: a reference to an unset variable keeps the stored secret.
    const round = await runCli(['apply', '-f', '-', '--prune'], env, exported.stdout);
    expect(round.code, round.stderr).to.equal(0);
    expect(round.stdout.trim()).to.equal('No changes: the organization matches the file.');
    expect(await snapshot()).to.deep.equal(before);
  });

  it('names the line of a YAML syntax error and changes nothing', async () => {
    const before = await snapshot();
    const broken = outpostYaml().replace('    tags: [frontend, public]', '    tags: [frontend, public');
    const run = await apply(write('broken.yaml', broken));
    expect(run.code).to.equal(1);
    expect(run.stderr).to.match(/broken\.yaml:(7|8|9):\d+: /);
    expect(run.stdout).to.equal('');
    expect(await snapshot()).to.deep.equal(before);
  });

  it('names the line and the key of an unknown key and changes nothing', async () => {
    const before = await snapshot();
    const typo = outpostYaml({ webInterval: 45 }).replace('    severity: warning', '    severity: warning\n    sevrity: critical');
    const run = await apply(write('typo.yaml', typo));
    expect(run.code).to.equal(1);
    const line = typo.split('\n').findIndex((l) => l.includes('sevrity')) + 1;
    expect(run.stderr).to.contain(`typo.yaml:${line}:5: unknown key "sevrity" in alert_rules.1`);
    expect(await snapshot()).to.deep.equal(before);
  });

  it('refuses a literal secret and a name that refers to nothing, naming their lines', async () => {
    const before = await snapshot();
    const bad = outpostYaml().replace('secret: ${HOOK_SECRET}', 'secret: plain-text').replace('channels: [ops hook]', 'channels: [ops hok]');
    const run = await apply(write('bad.yaml', bad));
    expect(run.code).to.equal(1);
    const lineOf = (text: string) => bad.split('\n').findIndex((l) => l.includes(text)) + 1;
    expect(run.stderr).to.contain(`bad.yaml:${lineOf('plain-text')}:`).and.to.contain('must be an ${ENV} reference');
    expect(await snapshot()).to.deep.equal(before);

    const unknown = await apply(write('unknown.yaml', outpostYaml({ webInterval: 30, withWindow: false }).replace('channels: [ops hook]', 'channels: [ops hok]')));
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.contain(`unknown.yaml:${lineOf('ops hok')}:`).and.to.contain('no notification channel named "ops hok"');
    expect(await snapshot()).to.deep.equal(before);

    const dependency = outpostYaml({ webInterval: 30, withWindow: false }).replace('depends_on: [db, nightly backup]', 'depends_on: [db, nightly backups]');
    const missing = await apply(write('dependency.yaml', dependency));
    expect(missing.code).to.equal(1);
    const line = dependency.split('\n').findIndex((l) => l.includes('nightly backups')) + 1;
    expect(missing.stderr).to.contain(`dependency.yaml:${line}:`).and.to.contain('no service or heartbeat named "nightly backups"');
    expect(await snapshot()).to.deep.equal(before);
  });
  it('replaces a channel whose type changed and points the rules naming it at the new one', async () => {
    const chat = outpostYaml({ webInterval: 30, withWindow: false }).replace(
      '    type: webhook\n    config:\n      url: http://127.0.0.1:9/hook\n      secret: ${HOOK_SECRET}',
      '    type: chat\n    config:\n      webhook_url: http://127.0.0.1:9/chat',
    );
    const file = write('replaced.yaml', chat);
    const run = await apply(file);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain('-/+ replace notification channel "ops hook"').and.to.contain('~ update alert rule "web down"');

    const hook = (await get('/notification-channels')).find((c) => c.name === 'ops hook');
    expect(hook.channel_type).to.equal('chat');
    const rule = (await get('/alert-rules')).find((r) => r.name === 'web down');
    expect(rule.condition.channel_ids).to.deep.equal([hook.id]);
    expect((await apply(file)).stdout).to.contain('No changes');
  });
  it('names an escalation policy the file does not manage by its name', async () => {
    const oncall = (await get('/notification-channels')).find((c) => c.name === 'oncall');
    const policy = await cp.api.post('/escalation-policies', { name: 'night shift', steps: [{ delay_minutes: 5, channel_ids: [oncall.id] }] }, user.token);
    expect(policy.status, policy.text).to.equal(201);
    const text = outpostYaml({ webInterval: 30, withWindow: false })
      .replace('    type: webhook\n    config:\n      url: http://127.0.0.1:9/hook\n      secret: ${HOOK_SECRET}', '    type: chat\n    config:\n      webhook_url: http://127.0.0.1:9/chat')
      .replace('    severity: warning', '    severity: warning\n    escalation_policy: night shift');
    const file = write('escalated.yaml', text);
    const run = await apply(file);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain('~ update alert rule "backup late"\n    escalation_policy: null -> "night shift"');
    const rule = (await get('/alert-rules')).find((r) => r.name === 'backup late');
    expect(rule.condition.escalation_policy_id).to.equal(policy.body.id);
    expect((await apply(file)).stdout).to.contain('No changes');
  });

  it('applies organization secrets and every kind of service option, exports secrets by name only, and applies the export as a no-op', async () => {
    const owner = await cp.api.newUser('cli-secrets');
    const ownEnv = { OUTPOST_URL: cp.baseUrl, OUTPOST_API_KEY: await cp.api.keyWithRole(owner, 'admin') };
    const values = { API_TOKEN: 'tok-cli-9e1', OAUTH_SECRET: 'cs-cli-7b2', PROXY_PASSWORD: 'px-cli-3c4' };
    const text = `
secrets:
  - name: API_TOKEN
    value: \${API_TOKEN}
services:
  - name: checkout
    check_type: MULTISTEP
    endpoint: https://shop.example.com/
    options:
      degraded_after_ms: 800
      fail_after_ms: 5000
      assertions:
        - source: response_time_ms
          comparison: less_than
          target: 3000
      oauth2:
        token_url: https://auth.example.com/token
        client_id: outpost
        client_secret: \${OAUTH_SECRET}
      proxy: http://monitor:\${PROXY_PASSWORD}@proxy.internal:3128
      steps:
        - name: cart
          url: https://shop.example.com/cart
          headers:
            Authorization: Bearer {{secrets.API_TOKEN}}
          extract:
            - name: cart_id
              source: json
              property: $.id
        - name: pay
          method: POST
          url: https://shop.example.com/cart/{{cart_id}}/pay
          assertions:
            - source: status
              comparison: equals
              target: 200
`;
    const file = write('secrets.yaml', text);
    const run = await runCli(['apply', '-f', file], { ...ownEnv, ...values });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain('+ create secret "API_TOKEN"').and.to.contain('Plan: 2 to create');
    for (const value of Object.values(values)) expect(run.stdout + run.stderr).not.to.contain(value);

    expect(((await cp.api.get('/secrets', owner.token)).body as any[]).map((s) => s.name)).to.deep.equal(['API_TOKEN']);
    const [service] = (await cp.api.get('/services', owner.token)).body as any[];
    expect(service.options).to.deep.include({ degraded_after_ms: 800, fail_after_ms: 5000, proxy: 'http://monitor:********@proxy.internal:3128' });
    expect(service.options.oauth2.client_secret).to.equal('********');
    expect(service.options.assertions).to.deep.equal([{ source: 'response_time_ms', comparison: 'less_than', target: 3000 }]);
    expect(service.options.steps[0].headers.Authorization).to.equal('Bearer {{secrets.API_TOKEN}}');
    expect(service.options.steps[1]).to.deep.include({ url: 'https://shop.example.com/cart/{{cart_id}}/pay', method: 'POST' });
    expect((await runCli(['apply', '-f', file], { ...ownEnv, ...values })).stdout).to.contain('No changes');

    const exported = await runCli(['export'], ownEnv);
    expect(exported.code, exported.stderr).to.equal(0);
    expect(exported.stdout)
      .to.contain('- name: API_TOKEN\n    value: ${API_TOKEN}')
      .and.to.contain('client_secret: ${CHECKOUT_OAUTH2_CLIENT_SECRET}')
      .and.to.contain('proxy: http://monitor:********@proxy.internal:3128')
      .and.to.contain('Authorization: Bearer {{secrets.API_TOKEN}}');
    for (const value of Object.values(values)) expect(exported.stdout).not.to.contain(value);
    const round = await runCli(['apply', '-f', '-'], ownEnv, exported.stdout);
    expect(round.code, round.stderr).to.equal(0);
    expect(round.stdout.trim()).to.equal('No changes: the organization matches the file.');
  });

  it('applies the private-network check types with their secrets as references, and exports them as a no-op', async () => {
    const owner = await cp.api.newUser('cli-private-network');
    const ownEnv = { OUTPOST_URL: cp.baseUrl, OUTPOST_API_KEY: await cp.api.keyWithRole(owner, 'admin') };
    const values = { SNMP_AUTH: 'snmp-auth-5d1e', SNMP_PRIV: 'snmp-priv-8a2c', RADIUS_SECRET: 'radius-7f3b', NATS_TOKEN: 'nats-2b9d' };
    const text = `
services:
  - name: core switch
    check_type: SNMP
    endpoint: switch-1.internal
    options:
      version: "3"
      username: monitor
      auth_protocol: SHA-256
      auth_password: \${SNMP_AUTH}
      priv_password: \${SNMP_PRIV}
      oids: [1.3.6.1.2.1.1.3.0, 1.3.6.1.2.1.1.5.0]
      assertions:
        - source: oid
          property: 1.3.6.1.2.1.1.5.0
          comparison: equals
          target: switch-1
  - name: wifi login
    check_type: RADIUS
    endpoint: radius.internal
    options:
      secret: \${RADIUS_SECRET}
      username: probe
  - name: events
    check_type: NATS
    endpoint: nats://nats.internal:4222
    options:
      token: \${NATS_TOKEN}
      subject: health.ping
  - name: example.com registration
    check_type: DOMAIN
    endpoint: example.com
    options:
      warn_days: 45
`;
    const file = write('private-network.yaml', text);
    const run = await runCli(['apply', '-f', file], { ...ownEnv, ...values });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain('Plan: 4 to create');
    for (const value of Object.values(values)) expect(run.stdout + run.stderr).not.to.contain(value);
    const services = (await cp.api.get('/services', owner.token)).body as any[];
    const byName = (rows: any[], name: string) => rows.find((r) => r.name === name);
    expect(byName(services, 'core switch').options).to.deep.include({ version: '3', auth_password: '********', priv_password: '********' });
    expect(byName(services, 'wifi login').options).to.deep.equal({ secret: '********', username: 'probe' });
    expect(byName(services, 'events').options).to.deep.equal({ token: '********', subject: 'health.ping' });
    expect((await runCli(['apply', '-f', file], { ...ownEnv, ...values })).stdout).to.contain('No changes');

    const exported = await runCli(['export'], ownEnv);
    expect(exported.code, exported.stderr).to.equal(0);
    expect(exported.stdout).to.contain('secret: ${WIFI_LOGIN_SECRET}').and.to.contain('token: ${EVENTS_TOKEN}');
    for (const value of Object.values(values)) expect(exported.stdout).not.to.contain(value);
    const round = await runCli(['apply', '-f', '-'], ownEnv, exported.stdout);
    expect(round.code, round.stderr).to.equal(0);
    expect(round.stdout.trim()).to.equal('No changes: the organization matches the file.');

    const literal = write('literal.yaml', text.replace('${RADIUS_SECRET}', 'plain-text-secret'));
    const refused = await runCli(['apply', '-f', literal], { ...ownEnv, ...values });
    expect(refused.code).to.not.equal(0);
    expect(refused.stderr).to.match(/secret/);
  });

  it('applies a cron heartbeat, exports it as a no-op, and switches it to an interval', async () => {
    const owner = await cp.api.newUser('cli-cron');
    const ownEnv = { OUTPOST_URL: cp.baseUrl, OUTPOST_API_KEY: await cp.api.keyWithRole(owner, 'admin') };
    const heartbeats = async () => (await cp.api.get('/heartbeats', owner.token)).body as any[];
    const cron = write('cron.yaml', 'heartbeats:\n  - name: report\n    schedule: "0 9 * * *"\n    timezone: America/New_York\n    max_runtime_seconds: 600\n');
    const created = await runCli(['apply', '-f', cron], ownEnv);
    expect(created.code, created.stderr).to.equal(0);
    expect((await heartbeats())[0]).to.include({ name: 'report', schedule: '0 9 * * *', timezone: 'America/New_York', interval_seconds: null, max_runtime_seconds: 600 });
    expect((await runCli(['apply', '-f', cron], ownEnv)).stdout).to.contain('No changes');

    const exported = await runCli(['export'], ownEnv);
    expect(exported.stdout).to.contain('schedule: 0 9 * * *').and.to.contain('timezone: America/New_York').and.not.to.contain('interval_seconds');
    expect((await runCli(['apply', '-f', '-'], ownEnv, exported.stdout)).stdout.trim()).to.equal('No changes: the organization matches the file.');

    const switched = await runCli(['apply', '-f', write('interval.yaml', 'heartbeats:\n  - name: report\n    interval_seconds: 3600\n')], ownEnv);
    expect(switched.code, switched.stderr).to.equal(0);
    expect(switched.stdout).to.contain('~ update heartbeat "report"');
    expect((await heartbeats())[0]).to.include({ interval_seconds: 3600, schedule: null, timezone: null, max_runtime_seconds: null });

    const both = await runCli(['apply', '-f', write('both.yaml', 'heartbeats:\n  - name: report\n    interval_seconds: 60\n    schedule: "@daily"\n')], ownEnv);
    expect(both.code).to.equal(1);
    expect(both.stderr).to.contain('give either interval_seconds or schedule, not both');
  });
});
