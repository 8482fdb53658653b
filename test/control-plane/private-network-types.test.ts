// The private-network check types (issue 40) through the API: each is created with its options,
// its secrets sealed at rest, masked in answers and sent in clear to the agent that runs it;
// endpoints and options that cannot work are 400s naming the field; and a UDP check and a DOMAIN
// check run end to end by the control plane's embedded agent against real servers on 127.0.0.1.
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectScriptedAgent } from '../support/grpc-test-agent.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';

/** One valid service of each new type, with every secret option it takes. */
const SERVICES: Record<string, { endpoint: string; options: Record<string, unknown>; secrets: string[] }> = {
  SNMP: {
    endpoint: 'switch-1.internal',
    options: { version: '3', username: 'monitor', auth_protocol: 'SHA-256', auth_password: 'auth-pass-1', priv_protocol: 'AES', priv_password: 'priv-pass-1', oids: ['1.3.6.1.2.1.1.5.0'] },
    secrets: ['auth_password', 'priv_password'],
  },
  NTP: { endpoint: 'ntp.internal:123', options: { assertions: [{ source: 'offset_ms', comparison: 'less_than', target: 100 }] }, secrets: [] },
  UDP: { endpoint: 'game.internal:27015', options: { send_hex: 'ffffffff54' }, secrets: [] },
  LDAP: { endpoint: 'ldaps://ldap.internal', options: { bind_dn: 'cn=monitor,dc=example,dc=org', password: 'ldap-pass-1', base_dn: 'dc=example,dc=org' }, secrets: ['password'] },
  RADIUS: { endpoint: 'radius.internal', options: { secret: 'radius-secret-1', username: 'probe', password: 'probe-pass-1' }, secrets: ['secret', 'password'] },
  SIP: { endpoint: 'sip:pbx.internal;transport=tcp', options: {}, secrets: [] },
  MQTT: { endpoint: 'mqtts://broker.internal', options: { username: 'monitor', password: 'mqtt-pass-1', topic: 'outpost/probe' }, secrets: ['password'] },
  AMQP: { endpoint: 'amqp://rabbit.internal/%2F', options: { username: 'monitor', password: 'amqp-pass-1', queue: 'jobs' }, secrets: ['password'] },
  NATS: { endpoint: 'nats://nats.internal:4222', options: { token: 'nats-token-1', subject: 'health.ping' }, secrets: ['token'] },
  DOCKER: { endpoint: 'web', options: { socket: '/run/podman/podman.sock' }, secrets: [] },
  TRACEROUTE: { endpoint: 'gateway.internal', options: { max_hops: 10, packets: 3 }, secrets: [] },
  DOMAIN: { endpoint: 'example.com', options: { warn_days: 45 }, secrets: [] },
};

describe('private-network check types through the API', function () {
  this.timeout(60_000);
  let cp: TestControlPlane;
  let user: TestUser;

  before(async () => {
    cp = await startTestControlPlane({ embeddedAgent: true });
    user = await cp.api.newUser('private-network');
    await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
  });
  after(async () => {
    await cp?.stop();
  });

  const create = (fields: Record<string, unknown>) => cp.api.post('/services', { name: `svc ${randomBytes(4).toString('hex')}`, check_interval_seconds: 300, ...fields }, user.token);
  const storedOptions = async (id: string) => (await sql<{ options: Record<string, unknown> }>('select options from services where id = $1', [id]))[0]!.options;

  it('creates each type with its options, seals its secrets, masks them in answers and sends them in clear to the agent', async () => {
    const location = `pn-${randomBytes(4).toString('hex')}`;
    const ids: Record<string, string> = {};
    for (const [checkType, s] of Object.entries(SERVICES)) {
      const r = await create({ check_type: checkType.toLowerCase(), endpoint: s.endpoint, options: s.options, locations: [location] });
      expect(r.status, `${checkType}: ${r.text}`).to.equal(201);
      expect(r.body.check_type).to.equal(checkType);
      ids[checkType] = r.body.id;
      const stored = await storedOptions(r.body.id);
      for (const key of s.secrets) {
        expect(r.body.options[key], `${checkType} ${key}`).to.equal('********');
        expect(stored[key], `${checkType} ${key} at rest`).to.match(/^enc:v2:/);
      }
    }
    // Sending the mask back keeps the stored value.
    const edited = await cp.api.put(`/services/${ids.RADIUS}`, { options: { ...SERVICES.RADIUS!.options, secret: '********', nas_identifier: 'outpost-test' } }, user.token);
    expect(edited.status, edited.text).to.equal(200);

    const agent = await connectScriptedAgent(cp.running.grpcPort, cp.running.agentToken, location);
    try {
      const snapshot = await poll(() => agent.received.find((m) => m.payload?.$case === 'snapshot'), { what: 'the snapshot' });
      if (snapshot.payload?.$case !== 'snapshot') throw new Error('no snapshot');
      const byId = new Map(snapshot.payload.value.assignments.map((a) => [a.serviceId, a]));
      for (const [checkType, s] of Object.entries(SERVICES)) {
        const assignment = byId.get(ids[checkType]!)!;
        expect(assignment.checkType, checkType).to.equal(checkType);
        for (const key of s.secrets) expect(assignment.options![key], `${checkType} ${key}`).to.equal(s.options[key]);
      }
      expect(byId.get(ids.RADIUS!)!.options).to.deep.include({ secret: 'radius-secret-1', nas_identifier: 'outpost-test' });
    } finally {
      agent.close();
    }
  });

  it('refuses endpoints each type cannot use, naming the field and the form it wants', async () => {
    const refused: [string, string, RegExp][] = [
      ['MQTT', 'mqtt://monitor:secret@broker.internal', /must not carry credentials/],
      ['AMQP', 'amqp://guest:guest@rabbit.internal/', /must not carry credentials/],
      ['LDAP', 'https://ldap.internal', /ldap:\/\/ or ldaps:\/\//],
      ['SIP', 'sip:pbx.internal;transport=sctp', /SIP URI/],
      ['DOMAIN', '93.184.216.34', /registered domain/],
      ['DOCKER', 'web/../../etc', /name or id/],
      ['UDP', 'game.internal', /host:port/],
      ['SNMP', 'switch-1.internal:99999', /host, or host:port/],
    ];
    for (const [checkType, endpoint, reason] of refused) {
      const r = await create({ check_type: checkType, endpoint, options: checkType === 'UDP' ? { send: 'x' } : {} });
      expect(r.status, `${checkType} ${endpoint}`).to.equal(400);
      expect(r.body.code).to.equal('VALIDATION_FAILED');
      expect(JSON.stringify(r.body.details), `${checkType} ${endpoint}`).to.match(reason);
    }
  });

  it('refuses options that contradict each other or leave an assertion nothing to read, naming the option', async () => {
    const refused: [string, string, Record<string, unknown>, string, RegExp][] = [
      ['SNMP', 'switch-1.internal', { version: '3' }, 'options.username', /needs a username/],
      ['SNMP', 'switch-1.internal', { username: 'monitor' }, 'options.username', /SNMPv3/],
      ['SNMP', 'switch-1.internal', { oids: ['1.3.6.1.2.1.1.5.0'], assertions: [{ source: 'oid', property: '1.3.6.1.2.1.1.6.0', comparison: 'exists' }] }, 'options.assertions.0.property', /not one of options\.oids/],
      ['SNMP', 'switch-1.internal', { oids: ['iso.3.6'] }, 'options.oids.0', /numeric/],
      ['UDP', 'game.internal:27015', { send: 'a', send_hex: '00' }, 'options.send', /send or send_hex/],
      ['RADIUS', 'radius.internal', { username: 'probe' }, 'options.secret', /shared secret is required/],
      ['LDAP', 'ldap://ldap.internal', { assertions: [{ source: 'entries', comparison: 'equals', target: 1 }] }, 'options.assertions.0.source', /needs options\.base_dn/],
      ['LDAP', 'ldap://ldap.internal', { base_dn: 'dc=example,dc=org', filter: '(objectClass=person' }, 'options.filter', /not an LDAP filter \(RFC 4515\): Unbalanced parens/],
      ['MQTT', 'mqtt://broker.internal', { topic: 'sensors/+/temp' }, 'options.topic', /publish to false/],
      ['NATS', 'nats://nats.internal', { token: 't', username: 'u', password: 'p' }, 'options.token', /choose one/],
      ['DOCKER', 'web', { socket: 'docker.sock' }, 'options.socket', /absolute path/],
      ['DOMAIN', 'example.com', { rdap_url: 'ftp://rdap.example/' }, 'options.rdap_url', /http\(s\) URL/],
    ];
    for (const [checkType, endpoint, options, field, reason] of refused) {
      const r = await create({ check_type: checkType, endpoint, options });
      expect(r.status, `${checkType} ${JSON.stringify(options)}: ${r.text}`).to.equal(400);
      const detail = (r.body.details as { path: string; message: string }[]).find((d) => d.path === field);
      expect(detail?.message, `${checkType} ${field} in ${JSON.stringify(r.body.details)}`).to.match(reason);
    }
  });

  describe('run by the embedded agent', () => {
    let echo: dgram.Socket;
    let rdap: http.Server;
    before(async () => {
      echo = dgram.createSocket('udp4');
      echo.on('message', (msg, from) => echo.send(Buffer.concat([Buffer.from('echo:'), msg]), from.port, from.address));
      echo.bind(0, '127.0.0.1');
      await once(echo, 'listening');
      const expires = new Date(Date.now() + 200 * 86_400_000).toISOString();
      rdap = http.createServer((req, res) => {
        if (req.url !== '/domain/outpost-test.example') return res.writeHead(404, { 'content-type': 'application/rdap+json' }).end('{"errorCode":404}');
        res.writeHead(200, { 'content-type': 'application/rdap+json' });
        res.end(JSON.stringify({ objectClassName: 'domain', ldhName: 'outpost-test.example', events: [{ eventAction: 'expiration', eventDate: expires }] }));
      });
      rdap.listen(0, '127.0.0.1');
      await once(rdap, 'listening');
    });
    after(() => {
      echo?.close();
      rdap?.close();
    });

    const latestCheck = (id: string) =>
      poll(async () => (await cp.api.get(`/services/${id}/checks?limit=1`, user.token)).body?.[0], { what: `the first check of ${id}`, timeoutMs: 20_000 });

    it('checks a UDP service GREEN with its reply as an assertion source', async () => {
      const r = await create({
        check_type: 'UDP',
        endpoint: `127.0.0.1:${(echo.address() as AddressInfo).port}`,
        options: { send: 'ping\\n', assertions: [{ source: 'body', comparison: 'equals', target: 'echo:ping\n' }, { source: 'body_hex', comparison: 'contains', target: '70696e67' }] },
      });
      expect(r.status, r.text).to.equal(201);
      const check = await latestCheck(r.body.id);
      expect(check.status, check.message).to.equal('GREEN');
      expect(check.details.assertions.map((a: { passed: boolean }) => a.passed)).to.deep.equal([true, true]);
    });

    it('checks a DOMAIN service against its registry, and turns RED for one that is not registered', async () => {
      const rdapUrl = `http://127.0.0.1:${(rdap.address() as AddressInfo).port}/`;
      const ok = await create({ check_type: 'DOMAIN', endpoint: 'outpost-test.example', options: { rdap_url: rdapUrl, assertions: [{ source: 'days_remaining', comparison: 'greater_than', target: 100 }] } });
      expect(ok.status, ok.text).to.equal(201);
      const green = await latestCheck(ok.body.id);
      expect(green.status, green.message).to.equal('GREEN');
      expect(green.details.assertions[0]).to.include({ passed: true });
      const missing = await create({ check_type: 'DOMAIN', endpoint: 'not-registered.example', options: { rdap_url: rdapUrl } });
      const red = await latestCheck(missing.body.id);
      expect(red.status).to.equal('RED');
      expect(red.message).to.match(/not registered/);
    });
  });
});
