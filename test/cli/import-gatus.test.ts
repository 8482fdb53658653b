// `outpost import gatus` as a user runs it: the CLI as its own process on Gatus configurations
// (its own examples, and one that uses every mapping), the outpost.yaml it writes read back
// with the CLI's own file schema, and once applied to a control plane whose embedded agent
// must reach the verdicts the Gatus conditions say.
import { expect } from 'chai';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { globToRe2 } from '../../cli/src/importers/gatus-conditions.js';
import { parseGoDuration } from '../../cli/src/importers/go-duration.js';
import type { TestUser } from '../support/api-client.js';
import { runCli, type CliRun } from '../support/cli-process.js';
import { loadImported as loadImportedFile, variablesOf } from '../support/imported-file.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';

const FIXTURES = 'test/fixtures/gatus';
const fixture = (name: string) => path.join(FIXTURES, name);

const importGatus = (file: string, ...flags: string[]) => runCli(['import', 'gatus', file, ...flags], {});

/** The produced file with each variable set; the Redis host is read as a host name. */
const loadImported = (run: CliRun) => loadImportedFile(run, (v) => (v === 'REDIS_HOST' ? 'redis.internal' : undefined));

/** The row of that name (any: the tests read the written YAML as well as the loaded file). */
const byName = (rows: { name: string }[], name: string): any => {
  const found = rows.find((r) => r.name === name);
  expect(found, `${name} in ${rows.map((r) => r.name).join(', ')}`).to.exist;
  return found!;
};

describe('outpost import gatus', function () {
  this.timeout(30_000);

  describe('a configuration that uses every mapping', () => {
    let run: CliRun;
    let file: any;

    before(async () => {
      run = await importGatus(fixture('everything.yaml'));
      file = parse(run.stdout);
    });

    it('exits 0 with a file the CLI\'s own schema reads', () => {
      expect(run.code, run.stderr).to.equal(0);
      const loaded = loadImported(run);
      expect(loaded.services.map((s) => s.name)).to.include.members(['api-health', 'redis', 'example-dns-query']);
    });

    it('writes no secret of the Gatus file in clear, anywhere', () => {
      const source = readFileSync(fixture('everything.yaml'), 'utf8');
      const secrets = [...source.matchAll(/[\w:]*-secret-\d{4}/g)].map((m) => m[0]);
      expect(secrets).to.have.length.greaterThan(10);
      for (const secret of secrets) {
        expect(run.stdout, secret).not.to.contain(secret);
        expect(run.stderr, secret).not.to.contain(secret);
      }
    });

    it('maps an HTTP endpoint: interval, timeout, group, bearer token, headers and every condition it can', () => {
      const api = byName(file.services, 'api-health');
      expect(api).to.deep.include({ check_type: 'HTTPS', endpoint: 'https://api.example.com/health', check_interval_seconds: 30, timeout_seconds: 5, tags: ['core'] });
      expect(api.options.bearer_token).to.equal('${API_HEALTH_BEARER_TOKEN}');
      expect(api.options.headers).to.deep.equal({ 'X-Requested-By': 'gatus' });
      expect(api.options.assertions).to.deep.equal([
        { source: 'status', comparison: 'equals', target: 200 },
        { source: 'response_time_ms', comparison: 'less_than', target: 300 },
        { source: 'json', property: '$.status', comparison: 'equals', target: 'UP' },
        { source: 'json', property: '$.data[0].id', comparison: 'equals', target: 1 },
        { source: 'json', property: '$.name', comparison: 'not_equals', target: 'bob' },
        { source: 'json', property: '$.errors', comparison: 'not_exists' },
        { source: 'tls_days_remaining', comparison: 'greater_than', target: 2 },
      ]);
      expect(byName(file.services, 'api-health (domain)')).to.deep.include({
        check_type: 'DOMAIN',
        endpoint: 'api.example.com',
        options: { assertions: [{ source: 'days_remaining', comparison: 'greater_than', target: 30 }] },
      });
    });

    it('maps method, body, client settings, enabled: false, pat() and any()', () => {
      const search = byName(file.services, 'search');
      expect(search).to.deep.include({ check_interval_seconds: 5400, paused: true });
      expect(search.options).to.deep.include({ method: 'POST', body: '{"q": "ping"}', verify_tls: false, follow_redirects: false });
      expect(search.options.assertions).to.deep.equal([
        { source: 'status', comparison: 'less_than', target: 300 },
        { source: 'body', comparison: 'matches', target: '^(?s:.*hello.*)$' },
        { source: 'json', property: '$.id', comparison: 'matches', target: '^(?:1|2)$' },
      ]);
      const graphql = byName(file.services, 'graphql');
      expect(JSON.parse(graphql.options.body)).to.have.property('query').that.contains('users(gender: "female")');
      expect(graphql.options.headers).to.deep.equal({ Cookie: '${GRAPHQL_COOKIE}' });
      // No [STATUS] condition: any status passes in Gatus, and in Outpost with this assertion.
      expect(graphql.options.assertions[0]).to.deep.equal({ source: 'status', comparison: 'exists' });
    });

    it('maps TCP, UDP, ICMP, DNS, SSH, STARTTLS, TLS and WebSocket endpoints', () => {
      const service = (name: string) => byName(file.services, name);
      expect(service('redis')).to.deep.include({ check_type: 'TCP', endpoint: '${REDIS_HOST}:6379', options: {} });
      expect(service('memcached').options).to.deep.equal({ send: 'stats\\r\\n', assertions: [{ source: 'body', comparison: 'matches', target: '^(?s:.*STAT.*)$' }] });
      expect(service('udp-echo')).to.deep.include({ check_type: 'UDP', endpoint: '127.0.0.1:7' });
      expect(service('ping-example')).to.deep.include({ check_type: 'ICMP', endpoint: 'example.com', options: { assertions: [{ source: 'response_time_ms', comparison: 'less_than', target: 100 }] } });
      expect(service('example-dns-query')).to.deep.include({ check_type: 'DNS', endpoint: 'example.com', check_interval_seconds: 300 });
      expect(service('example-dns-query').options).to.deep.equal({
        dns_record_type: 'A',
        resolver: '8.8.8.8',
        assertions: [
          { source: 'answers', comparison: 'equals', target: '93.184.215.14' },
          { source: 'rcode', comparison: 'equals', target: 'NOERROR' },
        ],
      });
      expect(service('ssh-example-password')).to.deep.include({ check_type: 'SSH', endpoint: 'example.com:22', options: { username: 'username', password: '${SSH_EXAMPLE_PASSWORD_SSH_PASSWORD}' } });
      expect(service('starttls-smtp-example')).to.deep.include({ check_type: 'SMTP', endpoint: 'smtp.gmail.com:587', timeout_seconds: 5 });
      expect(service('tls-ldaps-example')).to.deep.include({ check_type: 'TCP', endpoint: 'ldap.example.com:636' });
      expect(service('websocket-example')).to.deep.include({ check_type: 'WEBSOCKET', endpoint: 'wss://echo.websocket.org' });
      const names = file.services.map((s: { name: string }) => s.name);
      expect(names).not.to.include.members(['udp-silent']);
      expect(names).not.to.include('sctp-example');
    });

    it('maps providers to channels and endpoint alerts to rules, with the default alert', () => {
      expect(file.notification_channels.map((c: { name: string }) => c.name)).to.deep.equal(['slack', 'discord', 'pagerduty', 'telegram', 'email', 'custom', 'teams-workflows']);
      expect(byName(file.notification_channels, 'slack').config).to.deep.equal({ provider: 'slack', webhook_url: '${SLACK_WEBHOOK_URL}' });
      expect(byName(file.notification_channels, 'pagerduty')).to.deep.include({ type: 'pager', config: { provider: 'pagerduty', integration_key: '${PAGERDUTY_INTEGRATION_KEY}' } });
      expect(byName(file.notification_channels, 'telegram').config).to.deep.equal({ provider: 'telegram', bot_token: '${TELEGRAM_TOKEN}', chat_id: '0123456789' });
      expect(byName(file.notification_channels, 'email')).to.deep.include({ type: 'email', config: { to: 'oncall@example.com' } });
      expect(byName(file.notification_channels, 'custom').config).to.deep.equal({
        url: '${CUSTOM_WEBHOOK_URL}',
        method: 'POST',
        headers: { Authorization: '${CUSTOM_AUTHORIZATION}', 'Content-Type': 'application/json' },
      });
      // Gatus's own ${ENV} reference stays one.
      expect(byName(file.notification_channels, 'teams-workflows').config).to.deep.equal({ provider: 'teams', webhook_url: '${TEAMS_WEBHOOK}' });

      expect(byName(file.alert_rules, 'api-health: slack'), 'failure-threshold from the default alert').to.deep.include({ service: 'api-health', consecutive_failures: 5, recovery_threshold: 2, channels: ['slack'] });
      expect(byName(file.alert_rules, 'api-health: pagerduty')).to.deep.include({ consecutive_failures: 2, recovery_threshold: 3, channels: ['pagerduty'] });
      expect(byName(file.alert_rules, 'search: discord')).to.deep.include({ enabled: false });
      expect(byName(file.alert_rules, 'ext-ep-test: discord')).to.deep.include({ service: 'ext-ep-test' });
      expect(file.alert_rules.map((r: { name: string }) => r.name)).not.to.include('api-health: signal');
    });

    it('maps external endpoints to heartbeats and maintenance to recurring windows', () => {
      expect(file.heartbeats).to.deep.equal([{ name: 'ext-ep-test', interval_seconds: 1800, grace_seconds: 0 }]);
      expect(file.maintenance_windows).to.deep.equal([
        { name: 'api-health maintenance', schedule: '30 7 * * *', timezone: 'Europe/Berlin', duration_minutes: 40, services: ['api-health'] },
        { name: 'maintenance', schedule: '0 23 * * 1,4', timezone: 'Europe/Amsterdam', duration_minutes: 60, services: [] },
      ]);
    });

    it('reports what it could not map, and why', () => {
      for (const line of [
        '  - storage: ignored: ',
        '  - ui: ignored: ',
        '  - web: ignored: ',
        '  - metrics: ignored: ',
        '  - security: ignored: ',
        '  - alerting.signal: not imported: Outpost has no signal channel',
        '  - alerting.email: from, host, port, username and password are not imported',
        '  - endpoint api-health: condition "len([BODY].items) == 3" not mapped: ',
        '  - endpoint api-health: condition "[IP] == 127.0.0.1" not mapped: ',
        '  - endpoint api-health: alert of type signal not imported',
        '  - endpoint graphql: interval 2s is 5s in Outpost',
        '  - endpoint udp-silent: not imported: an Outpost UDP check sends a datagram',
        '  - endpoint sctp-example: not imported: sctp:// endpoints have no Outpost check type',
        '  - endpoint ssh-example-password: condition "[STATUS] == 0" not mapped: ',
        '  - endpoint tls-ldaps-example: tls:// imported as a TCP connect check',
        '  - endpoint tls-ldaps-example: condition "[CERTIFICATE_EXPIRATION] > 48h" not mapped: ',
        '  - endpoint websocket-example: condition "[BODY].result >= 200" not mapped: ',
        '  - external endpoint ext-no-heartbeat: not imported: ',
      ]) {
        expect(run.stderr).to.contain(line);
      }
    });

    it('lists the variables to set', () => {
      expect(variablesOf(run.stderr)).to.have.members([
        'SLACK_WEBHOOK_URL',
        'DISCORD_WEBHOOK_URL',
        'PAGERDUTY_INTEGRATION_KEY',
        'TELEGRAM_TOKEN',
        'CUSTOM_AUTHORIZATION',
        'CUSTOM_WEBHOOK_URL',
        'TEAMS_WEBHOOK',
        'API_HEALTH_BEARER_TOKEN',
        'GRAPHQL_COOKIE',
        'REDIS_HOST',
        'SSH_EXAMPLE_PASSWORD_SSH_PASSWORD',
      ]);
    });
  });

  describe("Gatus's own examples", () => {
    it('docker-compose-postgres-storage: HTTP with certificate expiry, DNS and ICMP; storage ignored', async () => {
      const run = await importGatus(fixture('postgres-storage.yaml'));
      expect(run.code, run.stderr).to.equal(0);
      const file = loadImported(run);
      expect(file.services.map((s) => [s.name, s.check_type, s.tags])).to.deep.equal([
        ['back-end', 'HTTPS', ['core']],
        ['monitoring', 'HTTPS', ['internal']],
        ['nas', 'HTTPS', ['internal']],
        ['example-dns-query', 'DNS', []],
        ['icmp-ping', 'ICMP', []],
      ]);
      expect(byName(file.services, 'back-end').options.assertions).to.deep.equal([
        { source: 'status', comparison: 'equals', target: 200 },
        { source: 'tls_days_remaining', comparison: 'greater_than', target: 2 },
      ]);
      expect(run.stderr).to.contain('  - storage: ignored: ');
      expect(variablesOf(run.stderr), 'the storage section is not imported, nor its variables').to.deep.equal([]);
    });

    it('docker-compose-multiple-config-files (backend.yaml): JSON condition, ping, domain expiration', async () => {
      const run = await importGatus(fixture('multiple-config-files-backend.yaml'));
      expect(run.code, run.stderr).to.equal(0);
      const file = loadImported(run);
      expect(byName(file.services, 'check-if-api-is-healthy').options.assertions).to.deep.equal([
        { source: 'status', comparison: 'equals', target: 200 },
        { source: 'json', property: '$.status', comparison: 'equals', target: 'UP' },
        { source: 'response_time_ms', comparison: 'less_than', target: 1000 },
      ]);
      expect(byName(file.services, 'check-if-website-is-pingable')).to.deep.include({ check_type: 'ICMP', endpoint: 'example.org', check_interval_seconds: 60 });
      expect(byName(file.services, 'check-domain-expiration (domain)')).to.deep.include({ check_type: 'DOMAIN', endpoint: 'example.org', check_interval_seconds: 21600 });
    });

    it('docker-compose-mattermost: a channel and a rule, the webhook token kept out of the file', async () => {
      const run = await importGatus(fixture('mattermost.yaml'));
      expect(run.code, run.stderr).to.equal(0);
      const file = loadImported(run);
      expect(file.notification_channels).to.deep.equal([{ name: 'mattermost', type: 'chat', enabled: true, config: { provider: 'mattermost', webhook_url: 'value-of-MATTERMOST_WEBHOOK_URL' } }]);
      expect(file.alert_rules).to.have.length(1);
      expect(file.alert_rules[0]).to.deep.include({ name: 'example: mattermost', service: 'example', consecutive_failures: 3, recovery_threshold: 2, channels: ['mattermost'] });
      expect(run.stdout + run.stderr).not.to.contain('tokengoeshere');
      expect(variablesOf(run.stderr)).to.deep.equal(['MATTERMOST_WEBHOOK_URL']);
    });

    it('docker-compose-mtls: insecure mapped, client certificate files reported', async () => {
      const run = await importGatus(fixture('mtls.yaml'));
      expect(run.code, run.stderr).to.equal(0);
      const file = loadImported(run);
      expect(byName(file.services, 'example').options).to.deep.include({ verify_tls: false });
      expect(run.stderr).to.contain('  - endpoint example: client.tls: client certificates are options.client_certificate and client_key');
    });
  });

  describe('the command', () => {
    let dir: string;
    before(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-import-'))));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('writes to --out, not standard output', async () => {
      const out = path.join(dir, 'outpost.yaml');
      const run = await importGatus(fixture('mattermost.yaml'), '--out', out);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.equal('');
      expect(parse(readFileSync(out, 'utf8')).services[0].name).to.equal('example');
      expect(run.stderr).to.contain(`Wrote ${out}`);
    });

    it('reads a folder of files as Gatus merges them', async () => {
      const run = await importGatus(FIXTURES);
      expect(run.code, run.stderr).to.equal(0);
      // Every fixture's endpoints in one file: the taken names renamed, and said so.
      expect(run.stderr).to.contain('the name is taken by another endpoint; imported as');
      expect(() => loadImported(run)).not.to.throw();
    });

    it('fails on a file it cannot read, naming it', async () => {
      const run = await importGatus(fixture('../gatus-missing.yaml'));
      expect(run.code).to.equal(1);
      expect(run.stderr).to.contain('cannot read test/fixtures/gatus-missing.yaml');
    });
  });

  describe('parsing helpers', () => {
    it("reads Go's durations", () => {
      expect(parseGoDuration('30s')).to.equal(30_000);
      expect(parseGoDuration('1h30m')).to.equal(5_400_000);
      expect(parseGoDuration('500ms')).to.equal(500);
      expect(parseGoDuration('1.5h')).to.equal(5_400_000);
      expect(parseGoDuration('0')).to.equal(0);
      expect(parseGoDuration('5 minutes')).to.equal(undefined);
      expect(parseGoDuration('')).to.equal(undefined);
    });

    it("translates pat() globs to anchored RE2 patterns", () => {
      expect(globToRe2('*hello*')).to.equal('^(?s:.*hello.*)$');
      expect(globToRe2('192.168.*')).to.equal('^(?s:192\\.168\\..*)$');
      expect(globToRe2('v?.[0-9]')).to.equal('^(?s:v.\\.[0-9])$');
      expect(globToRe2('[!a]b')).to.equal('^(?s:[^a]b)$');
    });
  });

  describe('--apply, end to end', () => {
    let cp: TestControlPlane;
    let user: TestUser;
    let server: Server;
    let port: number;

    before(async function () {
      this.timeout(60_000);
      // /health/up answers UP, /health/down answers DOWN, both with a 200.
      server = http.createServer((req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: req.url === '/health/up' ? 'UP' : 'DOWN' }));
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      port = (server.address() as AddressInfo).port;
      cp = await startTestControlPlane({ embeddedAgent: true });
      user = await cp.api.newUser('import-gatus');
    });

    after(async () => {
      await cp?.stop();
      server?.closeAllConnections();
      server?.close();
    });

    const latestCheck = (id: string) =>
      poll(async () => (await cp.api.get(`/services/${id}/checks?limit=1`, user.token)).body?.[0], { what: `the first check of ${id}`, timeoutMs: 20_000 });

    it('shows the plan, applies it, and the agent reaches the verdicts of the Gatus conditions', async function () {
      this.timeout(60_000);
      const hook = `http://127.0.0.1:${port}/slack/e2e-hook-secret-4242`;
      const env = {
        OUTPOST_URL: cp.baseUrl,
        OUTPOST_API_KEY: await cp.api.keyWithRole(user, 'admin'),
        TARGET_PORT: String(port),
        SLACK_WEBHOOK_URL: hook,
      };
      const run = await runCli(['import', 'gatus', fixture('e2e.yaml'), '--apply'], env);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.contain('+ create service "e2e-healthy"').and.to.contain('Plan: 5 to create').and.to.contain('Applied.');
      expect(variablesOf(run.stderr)).to.have.members(['SLACK_WEBHOOK_URL', 'TARGET_PORT']);
      expect(run.stdout + run.stderr).not.to.contain('e2e-hook-secret-4242');

      const services = (await cp.api.get('/services', user.token)).body as { id: string; name: string; endpoint: string; tags: string[] }[];
      const healthy = byName(services, 'e2e-healthy');
      expect(healthy).to.deep.include({ endpoint: `http://127.0.0.1:${port}/health/up`, tags: ['e2e'] });
      const failing = byName(services, 'e2e-failing');

      const green = await latestCheck(healthy.id);
      expect(green.status, green.message).to.equal('GREEN');
      const red = await latestCheck(failing.id);
      expect(red.status).to.equal('RED');
      expect(red.message).to.equal('json $.status equals "UP": got "DOWN"');

      const rules = (await cp.api.get('/alert-rules', user.token)).body as { name: string; service_id: string; condition: { consecutive_failures: number } }[];
      expect(byName(rules, 'e2e-failing: slack')).to.deep.include({ service_id: failing.id });
      expect(byName(rules, 'e2e-failing: slack').condition).to.deep.include({ consecutive_failures: 1 });
    });
  });
});
