// `outpost import kuma` as a user runs it: the CLI as its own process on files Uptime Kuma made
// itself (a 1.23.17 and a 2.5.3 kuma.db, a 1.23.17 JSON backup: test/fixtures/kuma/README.md),
// the outpost.yaml read back with the CLI's own loader, and part of it applied to a control
// plane whose embedded agent must reach the verdicts Uptime Kuma gives.
import { expect } from 'chai';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { loadFile } from '../../cli/src/config-as-code/load-file.js';
import { importKuma as importKumaData } from '../../cli/src/importers/kuma.js';
import { parseConnection } from '../../cli/src/importers/kuma-connection.js';
import { readKumaFile } from '../../cli/src/importers/kuma-file.js';
import { jsonataToJsonPath } from '../../cli/src/importers/kuma-json-query.js';
import { wallClockToIso } from '../../cli/src/importers/kuma-maintenance.js';
import type { TestUser } from '../support/api-client.js';
import { runCli, type CliRun } from '../support/cli-process.js';
import { loadImported, variablesOf } from '../support/imported-file.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';

const fixture = (name: string) => path.join('test/fixtures/kuma', name);
const importKuma = (file: string, ...flags: string[]) => runCli(['import', 'kuma', file, ...flags], {});

/** Every "kuma-secret-NNNN" the fixture holds (the marker the fixtures' secrets carry). */
const secretsIn = (file: string) => [...new Set(readFileSync(fixture(file), 'latin1').match(/kuma-secret-\d{4}/g) ?? [])];

const byName = (rows: { name: string }[], name: string): any => {
  const found = rows.find((r) => r.name === name);
  expect(found, `${name} in ${rows.map((r) => r.name).join(', ')}`).to.exist;
  return found!;
};

describe('outpost import kuma', function () {
  this.timeout(30_000);

  for (const name of ['kuma-1.23.db', 'kuma-2.db', 'backup-1.23.json']) {
    describe(`${name}, as Uptime Kuma wrote it`, () => {
      let run: CliRun;
      before(async () => (run = await importKuma(fixture(name))));

      it("exits 0 with a file the CLI's own loader reads", () => {
        expect(run.code, run.stderr).to.equal(0);
        const loaded = loadImported(run);
        expect(loaded.services.map((s) => s.name)).to.include.members(['Website', 'Shop keyword', 'API health', 'Postgres port', 'Gateway ping', 'DNS MX', 'MQTT sensors', 'RADIUS', 'MySQL']);
        expect(loaded.heartbeats.map((h) => h.name)).to.deep.equal(['Nightly backup']);
      });

      it('writes no secret of the Kuma file in clear, and lists a variable for each', () => {
        const secrets = secretsIn(name);
        expect(secrets).to.have.length.greaterThan(20);
        for (const secret of secrets) expect(run.stdout + run.stderr, secret).not.to.contain(secret);
        expect(variablesOf(run.stderr)).to.include.members(['SLACK_OPS_WEBHOOK_URL', 'TELEGRAM_BOT_TOKEN', 'WEBSITE_BEARER_TOKEN', 'ORDERS_API_PASSWORD', 'POSTGRES_QUERY_PASSWORD', 'RADIUS_RADIUS_SECRET', 'WEBHOOK_URL', 'PAGERDUTY_INTEGRATION_KEY']);
      });

      it('reports the monitor types without an equivalent, and why', () => {
        for (const line of [
          '  - monitor SQL Server: not imported: Outpost has no SQL Server check',
          '  - monitor Steam server: not imported: ',
          '  - monitor Minecraft: not imported: ',
          '  - monitor Tailscale node: not imported: ',
          '  - monitor Kafka: not imported: Outpost has no Kafka check',
          '  - monitor Upside down: not imported: upside-down mode',
          '  - monitor NTLM intranet: NTLM authentication is not imported',
          '  - monitor gRPC orders: Uptime Kuma calls orders.Orders/Check',
          '  - monitor Browser home: a real browser (Chromium) loads the page',
          '  - notification Signal: not imported: Outpost has no signal channel',
          '  - notification Matrix: not imported: Outpost has no matrix channel',
          '  - group Production: Outpost has no monitor groups: its 2 monitors carry the tag "Production"',
        ]) {
          expect(run.stderr).to.contain(line);
        }
      });
    });
  }

  describe('the 2.x database, setting by setting', () => {
    let run: CliRun;
    let file: any;
    const service = (name: string) => byName(file.services, name);

    before(async () => {
      run = await importKuma(fixture('kuma-2.db'));
      file = parse(run.stdout);
    });

    it('says what it read', () => {
      expect(run.stderr).to.contain('Reading test/fixtures/kuma/kuma-2.db: an Uptime Kuma 2.x database.');
    });

    it('maps an HTTP monitor: interval, timeout, retries, accepted codes, headers, bearer, tags, group, description', () => {
      expect(service('Website')).to.deep.include({ check_type: 'HTTP', endpoint: 'http://127.0.0.1:8080/', check_interval_seconds: 30, timeout_seconds: 24, description: 'The public site' });
      expect(service('Website').tags).to.have.members(['env:prod', 'team:web', 'critical', 'Production']);
      expect(service('Website').options).to.deep.equal({
        retries: 2,
        retry_interval_seconds: 20,
        bearer_token: '${WEBSITE_BEARER_TOKEN}',
        headers: { 'X-Env': 'prod' },
        expected_status: ['2xx', 301],
      });
    });

    it('maps method, JSON body, basic auth, ignore TLS, no redirects and a code range', () => {
      expect(service('Orders API')).to.deep.include({ check_type: 'HTTPS', endpoint: 'https://monitor:${ORDERS_API_PASSWORD}@localhost:8443/api/orders' });
      expect(service('Orders API').options).to.deep.equal({
        method: 'POST',
        body: '{"probe": true}',
        headers: { 'Content-Type': 'application/json' },
        expected_status: [200, 201, 202, 203, 204],
        follow_redirects: false,
        verify_tls: false,
      });
      expect(service('XML post').options).to.deep.include({ method: 'PUT', body: '<ping/>', headers: { 'Content-Type': 'text/xml; charset=utf-8' }, expected_status: ['1xx', '2xx', '3xx', '4xx', '5xx'] });
      expect(service('Form post').options.headers).to.deep.equal({ 'X-Api-Key': '${FORM_POST_X_API_KEY}', 'Content-Type': 'application/x-www-form-urlencoded' });
    });

    it('maps keyword, inverted keyword and JSON queries with their operators', () => {
      expect(service('Shop keyword').options).to.deep.include({ keyword: 'Welcome' });
      expect(service('No error page').options).to.deep.include({ keyword: 'error', keyword_inverted: true });
      expect(service('API health').options.assertions).to.deep.equal([{ source: 'json', property: '$.status', comparison: 'equals', target: 'UP' }]);
      expect(service('Queue depth').options.assertions).to.deep.equal([{ source: 'json', property: '$.queue.depth', comparison: 'less_than', target: 100 }]);
    });

    it('maps bearer, OAuth2, mTLS and proxy settings, the secrets as variables', () => {
      expect(service('Bearer API').options.bearer_token).to.equal('${BEARER_API_BEARER_TOKEN}');
      expect(service('OAuth API').options.oauth2).to.deep.equal({ token_url: 'http://127.0.0.1:8081/token', client_id: 'kuma-client', client_secret: '${OAUTH_API_OAUTH2_CLIENT_SECRET}', scopes: ['read', 'write'] });
      expect(service('mTLS API').options).to.include({ client_key: '${MTLS_API_CLIENT_KEY}' }).and.to.have.property('client_certificate').that.contains('BEGIN CERTIFICATE');
      expect(service('Through proxy').options.proxy).to.equal('http://proxyuser:${THROUGH_PROXY_PROXY_PASSWORD}@127.0.0.1:3128');
      expect(service('Paused site')).to.deep.include({ paused: true, description: 'Retired, kept for history' });
    });

    it('maps port, ping, DNS, Docker, MQTT, RADIUS, SNMP, SMTP, NTP and WebSocket monitors', () => {
      expect(service('Postgres port')).to.deep.include({ check_type: 'TCP', endpoint: '127.0.0.1:5432', check_interval_seconds: 45 });
      expect(service('Gateway ping')).to.deep.include({ check_type: 'ICMP', endpoint: '127.0.0.1', options: { retries: 3, retry_interval_seconds: 30 } });
      expect(service('DNS MX')).to.deep.include({ check_type: 'DNS', endpoint: 'example.invalid', options: { dns_record_type: 'MX', resolver: '127.0.0.1:5353' } });
      expect(service('DNS A').options).to.deep.equal({ dns_record_type: 'A', resolver: '127.0.0.1', assertions: [{ source: 'answers', comparison: 'equals', target: '127.0.0.1' }] });
      expect(service('Nginx container')).to.deep.include({ check_type: 'DOCKER', endpoint: 'nginx', options: { socket: '/var/run/docker.sock' } });
      expect(service('MQTT sensors')).to.deep.include({ check_type: 'MQTT', endpoint: 'mqtt://127.0.0.1:1883' });
      expect(service('MQTT sensors').options).to.deep.equal({
        topic: 'sensors/temp',
        publish: false,
        username: 'sensor',
        password: '${MQTT_SENSORS_MQTT_PASSWORD}',
        assertions: [{ source: 'message', comparison: 'contains', target: 'ok' }],
      });
      expect(service('MQTT json').options.assertions).to.deep.equal([{ source: 'json', property: '$.temp', comparison: 'less_than', target: 40 }]);
      expect(service('RADIUS')).to.deep.include({ check_type: 'RADIUS', endpoint: '127.0.0.1:1812', options: { secret: '${RADIUS_RADIUS_SECRET}', username: 'probe', password: '${RADIUS_RADIUS_PASSWORD}' } });
      expect(service('Switch uptime')).to.deep.include({ check_type: 'SNMP', endpoint: '127.0.0.1:161' });
      expect(service('Switch uptime').options).to.deep.equal({
        version: '2c',
        community: '${SWITCH_UPTIME_SNMP_COMMUNITY}',
        oids: ['1.3.6.1.2.1.1.3.0'],
        assertions: [{ source: 'oid', property: '1.3.6.1.2.1.1.3.0', comparison: 'greater_than', target: 100 }],
      });
      expect(service('Mail server')).to.deep.include({ check_type: 'SMTP', endpoint: '127.0.0.1:25' });
      expect(service('NTP').options.assertions).to.deep.equal([
        { source: 'stratum', comparison: 'less_than', target: 5 },
        { source: 'offset_ms', comparison: 'less_than', target: 1000 },
        { source: 'offset_ms', comparison: 'greater_than', target: -1000 },
      ]);
      expect(service('Websocket')).to.deep.include({ check_type: 'WEBSOCKET', endpoint: 'ws://127.0.0.1:8080/ws' });
      expect(service('gRPC orders')).to.deep.include({ check_type: 'GRPC', endpoint: '127.0.0.1:50051' });
    });

    it('maps database monitors from their connection strings, the password a variable', () => {
      expect(service('Postgres query')).to.deep.include({ check_type: 'POSTGRES', endpoint: '127.0.0.1:5432', options: { username: 'monitor', password: '${POSTGRES_QUERY_PASSWORD}', database: 'app', query: 'SELECT 1' } });
      expect(service('MySQL')).to.deep.include({ check_type: 'MYSQL', endpoint: 'localhost:3306', options: { username: 'root', password: '${MYSQL_PASSWORD}', database: 'shop', query: 'SELECT COUNT(*) FROM orders' } });
      expect(service('MongoDB')).to.deep.include({ check_type: 'MONGODB', endpoint: '127.0.0.1:27017', options: { username: 'admin', password: '${MONGODB_PASSWORD}', database: 'admin' } });
      expect(service('Redis')).to.deep.include({ check_type: 'REDIS', endpoint: '127.0.0.1:6379', options: { password: '${REDIS_PASSWORD}' } });
    });

    it('maps a push monitor to a heartbeat, reporting the new ping URL', () => {
      expect(file.heartbeats).to.deep.equal([{ name: 'Nightly backup', interval_seconds: 3600, grace_seconds: 0 }]);
      expect(run.stderr).to.contain('  - monitor Nightly backup: imported as a heartbeat: the pusher must call the ping URL Outpost gives');
    });

    it('maps notifications to channels, and each monitor that used them to a rule', () => {
      const channel = (name: string) => byName(file.notification_channels, name);
      expect(channel('Slack ops')).to.deep.include({ type: 'chat', config: { provider: 'slack', webhook_url: '${SLACK_OPS_WEBHOOK_URL}' } });
      expect(channel('Telegram').config).to.deep.equal({ provider: 'telegram', bot_token: '${TELEGRAM_BOT_TOKEN}', chat_id: '-1001234567' });
      expect(channel('Teams').config).to.deep.equal({ provider: 'teams', webhook_url: '${TEAMS_WEBHOOK_URL}' });
      expect(channel('Google Chat').config).to.deep.equal({ provider: 'google_chat', webhook_url: '${GOOGLE_CHAT_WEBHOOK_URL}' });
      expect(channel('ntfy').config).to.deep.equal({ provider: 'ntfy', server_url: 'http://127.0.0.1:9', topic: 'kuma-alerts', token: '${NTFY_ACCESS_TOKEN}' });
      expect(channel('Pushover').config).to.deep.equal({ provider: 'pushover', token: '${PUSHOVER_APPLICATION_TOKEN}', user: '${PUSHOVER_USER_KEY}' });
      expect(channel('PagerDuty')).to.deep.include({ type: 'pager', config: { provider: 'pagerduty', integration_key: '${PAGERDUTY_INTEGRATION_KEY}' } });
      expect(channel('Opsgenie').config).to.deep.equal({ provider: 'opsgenie', api_key: '${OPSGENIE_API_KEY}', region: 'eu' });
      expect(channel('Webhook').config).to.deep.equal({ url: '${WEBHOOK_URL}', method: 'POST', headers: { Authorization: '${WEBHOOK_AUTHORIZATION}', 'X-Source': 'kuma' } });
      expect(channel('Twilio SMS')).to.deep.include({ type: 'sms', config: { to: '+15555550100' } });
      expect(['Email oncall 1', 'Email oncall 2', 'Email oncall 3'].map((n) => channel(n).config.to)).to.deep.equal(['oncall@example.invalid', 'ops@example.invalid', 'boss@example.invalid']);

      expect(byName(file.alert_rules, 'Website: notify')).to.deep.equal({
        name: 'Website: notify',
        service: 'Website',
        severity: 'critical',
        consecutive_failures: 1,
        channels: ['Slack ops', 'Email oncall 1', 'Email oncall 2', 'Email oncall 3'],
        repeat_interval_minutes: 5,
      });
      expect(byName(file.alert_rules, 'Nightly backup: notify')).to.deep.include({ service: 'Nightly backup', channels: ['Gotify'] });
    });

    it('maps maintenance: single in its time zone, weekdays, days of the month, every N days, cron', () => {
      const window = (name: string) => byName(file.maintenance_windows, name);
      expect(window('Database upgrade')).to.deep.equal({ name: 'Database upgrade', starts_at: '2031-03-01T21:00:00Z', ends_at: '2031-03-02T00:30:00Z', services: ['Postgres port', 'Postgres query'] });
      expect(window('Weekly patching')).to.deep.equal({ name: 'Weekly patching', schedule: '30 23 * * 2,4', timezone: 'America/New_York', duration_minutes: 75, services: ['Website', 'Shop keyword'] });
      expect(window('Monthly report')).to.deep.include({ schedule: '0 4 1,15,L * *', timezone: 'UTC', duration_minutes: 60 });
      expect(window('Every other day')).to.deep.include({ schedule: '0 1 */2 * *', duration_minutes: 20, services: ['Redis'] });
      expect(window('Nightly cron')).to.deep.include({ schedule: '30 3 * * *', timezone: 'UTC', duration_minutes: 45 });
      expect(run.stderr).to.contain('  - maintenance Manual freeze: not imported: manual maintenance lasts until someone ends it');
      expect(run.stderr).to.contain("  - maintenance Nightly cron: its time zone is the Kuma server's");
    });

    it('maps status pages, their sections as groups of their monitors in order', () => {
      expect(file.status_pages).to.deep.equal([
        {
          slug: 'acme',
          title: 'Acme status',
          description: 'Our services',
          public: true,
          groups: [
            { name: 'Web', services: ['Website', 'Shop keyword'] },
            { name: 'Back end', services: ['API health', 'Postgres port'] },
          ],
        },
        { slug: 'internal', title: 'Internal', description: null, public: true, groups: [] },
      ]);
      expect(run.stderr).not.to.contain('shown as one list');
    });

    it('makes no rule for a group whose monitor has no notification', () => {
      expect(file.alert_rules.map((r: { name: string }) => r.name)).not.to.include('Production (group): notify');
    });
  });

  describe('what differs in 1.x', () => {
    it('1.23: a JSONata function is reported, an MQTT message must equal, a form body is not sent', async () => {
      const run = await importKuma(fixture('kuma-1.23.db'));
      const file = parse(run.stdout);
      expect(run.stderr).to.contain('  - monitor Queue depth: JSON query not mapped: the JSONata expression "$count(items)" is more than a path');
      expect(byName(file.services, 'MQTT sensors').options.assertions).to.deep.equal([{ source: 'message', comparison: 'equals', target: 'ok' }]);
      expect(byName(file.services, 'Form post').options).not.to.have.property('body');
      expect(run.stderr).to.contain('  - monitor Form post: body: Uptime Kuma 1.x sends no body with the form encoding');
    });

    it('the JSON backup: tags and notifications kept, the rest named as missing', async () => {
      const run = await importKuma(fixture('backup-1.23.json'));
      const file = parse(run.stdout);
      expect(run.stderr).to.contain('an Uptime Kuma 1.23.17 JSON backup');
      expect(byName(file.services, 'Website').tags).to.have.members(['env:prod', 'team:web', 'critical', 'Production']);
      expect(byName(file.alert_rules, 'Website: notify').channels).to.include('Slack ops');
      expect(file).not.to.have.property('maintenance_windows');
      expect(run.stderr).to.contain('  - backup: a JSON backup holds monitors and notifications only');
      expect(run.stderr).to.contain('  - monitor Through proxy: its proxy is not in a JSON backup');
    });
  });

  describe('status pages with custom domains and overlapping sections', () => {
    /** The 2.x database as read, with what its pages lack: Kuma domains, a monitor in two sections. */
    const imported = async () => {
      const data = await readKumaFile(readFileSync(fixture('kuma-2.db')));
      const acme = data.statusPages.find((p) => p.slug === 'acme')!;
      acme.domains = ['Status.Example.com', 'status.example.org'];
      const website = data.monitors.find((m) => m.name === 'Website')!.id;
      const steam = data.monitors.find((m) => m.name === 'Steam server')!.id;
      acme.groups.push({ name: 'Everything', monitor_ids: [website] }, { name: 'Games', monitor_ids: [steam] });
      return importKumaData(data);
    };

    it('carries the first domain over as custom_domain and names the others in the report', async () => {
      const { file, report } = await imported();
      const acme = file.status_pages!.find((p) => p.slug === 'acme')!;
      expect(acme.custom_domain).to.equal('status.example.com');
      expect(report.lines).to.deep.include({ where: 'status page acme', why: 'a page has one custom domain in Outpost: status.example.com is imported; status.example.org is not' });
      expect(file.status_pages!.find((p) => p.slug === 'internal')).not.to.have.property('custom_domain');
    });

    it('keeps a service in its first section only, and leaves out a section left empty', async () => {
      const { file, report } = await imported();
      expect(file.status_pages!.find((p) => p.slug === 'acme')!.groups).to.deep.equal([
        { name: 'Web', services: ['Website', 'Shop keyword'] },
        { name: 'Back end', services: ['API health', 'Postgres port'] },
      ]);
      expect(report.lines.map((l) => l.why)).to.include.members([
        'section Everything: Website is in an earlier section already, and a service belongs to one group; the section is left out',
        'section Games: none of its monitors was imported; left out',
      ]);
      // The file applies as the CLI reads it: groups valid, one group per service.
      expect(loadFile(stringify(file), 'imported.yaml', Object.fromEntries(report.listVariables().map((v) => [v.name, 'x']))).file.status_pages[0]!.groups).to.have.length(2);
    });
  });

  describe('the command', () => {
    let dir: string;
    before(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-import-kuma-'))));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('reads by content, not by name', async () => {
      const renamed = path.join(dir, 'export.bin');
      writeFileSync(renamed, readFileSync(fixture('kuma-2.db')));
      const run = await importKuma(renamed, '--out', path.join(dir, 'outpost.yaml'));
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.equal('');
      expect(parse(readFileSync(path.join(dir, 'outpost.yaml'), 'utf8')).services[0].name).to.equal('Website');
    });

    it('refuses a file that is neither, naming it', async () => {
      const run = await importKuma(fixture('README.md'));
      expect(run.code).to.equal(1);
      expect(run.stderr).to.contain('cannot import test/fixtures/kuma/README.md: it is neither an SQLite database (kuma.db) nor JSON');
    });
  });

  describe('parsing helpers', () => {
    it('translates JSONata paths to JSONPath, and only paths', () => {
      expect(jsonataToJsonPath('status')).to.equal('$.status');
      expect(jsonataToJsonPath('data.items[0].id')).to.equal('$.data.items[0].id');
      expect(jsonataToJsonPath('$.a.`b-c`')).to.equal("$.a['b-c']");
      expect(jsonataToJsonPath('$count(items)')).to.equal(undefined);
      expect(jsonataToJsonPath('items[status="x"]')).to.equal(undefined);
    });

    it('takes connection strings apart, a password with @ in it included', () => {
      expect(parseConnection('postgres://u:p%40ss@db.internal/app?sslmode=require')).to.deep.equal({ scheme: 'postgres', host: 'db.internal', port: 5432, username: 'u', password: 'p@ss', database: 'app', parameters: ['sslmode'], otherHosts: [] });
      expect(parseConnection('mongodb://a:1,b:2/x')).to.deep.include({ host: 'a', port: 1, otherHosts: ['b:2'] });
      expect(parseConnection('Server=x;Password=y')).to.equal(undefined);
    });

    it('reads a wall-clock time in its zone, across daylight saving', () => {
      expect(wallClockToIso('2031-03-01 22:00', 'Europe/Berlin')).to.equal('2031-03-01T21:00:00Z');
      expect(wallClockToIso('2031-07-01 22:00', 'Europe/Berlin')).to.equal('2031-07-01T20:00:00Z');
      expect(wallClockToIso('2031-07-01 22:00', 'UTC')).to.equal('2031-07-01T22:00:00Z');
    });
  });

  describe('applied, end to end', () => {
    let cp: TestControlPlane;
    let user: TestUser;
    let server: Server;
    let port: number;
    let dir: string;

    before(async function () {
      this.timeout(60_000);
      // What the fixtures' HTTP monitors ask of 127.0.0.1:8080, on a free port instead.
      const pages: Record<string, string> = { '/shop': 'Welcome to the shop', '/status': 'an error occurred', '/health': '{"status":"DOWN"}' };
      server = http.createServer((req, res) => {
        res.writeHead(200, { 'content-type': req.url === '/health' ? 'application/json' : 'text/plain' });
        res.end(pages[req.url ?? ''] ?? '');
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      port = (server.address() as AddressInfo).port;
      dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-import-kuma-'));
      cp = await startTestControlPlane({ embeddedAgent: true });
      user = await cp.api.newUser('import-kuma');
    });

    after(async () => {
      await cp?.stop();
      server?.closeAllConnections();
      server?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const latestCheck = (id: string) =>
      poll(async () => (await cp.api.get(`/services/${id}/checks?limit=1`, user.token)).body?.[0], { what: `the first check of ${id}`, timeoutMs: 20_000 });

    it('applies the HTTP monitors, and the agent reaches the verdicts Uptime Kuma gives', async function () {
      this.timeout(60_000);
      const out = path.join(dir, 'outpost.yaml');
      const imported = await importKuma(fixture('kuma-2.db'), '--out', out);
      expect(imported.code, imported.stderr).to.equal(0);
      // The three keyword and JSON monitors, pointed at this test's server.
      const whole = parse(readFileSync(out, 'utf8'));
      const wanted = ['Shop keyword', 'No error page', 'API health'];
      const part = { services: whole.services.filter((s: { name: string }) => wanted.includes(s.name)) };
      writeFileSync(out, stringify(part).replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`));

      const env = { OUTPOST_URL: cp.baseUrl, OUTPOST_API_KEY: await cp.api.keyWithRole(user, 'admin') };
      const run = await runCli(['apply', '-f', out], env);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.contain('+ create service "Shop keyword"').and.to.contain('Plan: 3 to create').and.to.contain('Applied.');

      const services = (await cp.api.get('/services', user.token)).body as { id: string; name: string }[];
      // Kuma: keyword found is UP; an inverted keyword that is found is DOWN; "DOWN" != "UP" is DOWN.
      const shop = await latestCheck(byName(services, 'Shop keyword').id);
      expect(shop.status, shop.message).to.equal('GREEN');
      const errorPage = await latestCheck(byName(services, 'No error page').id);
      expect(errorPage.status).to.equal('RED');
      expect(errorPage.message).to.contain('keyword "error" found');
      const health = await latestCheck(byName(services, 'API health').id);
      expect(health.status).to.equal('RED');
      expect(health.message).to.equal('json $.status equals "UP": got "DOWN"');
    });
  });
});
