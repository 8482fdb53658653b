import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { expect } from 'chai';
import { parseCheckOptions } from '../../../shared/src/check-options.js';
import { refusedEndpoint, udpListener } from '../../fixtures/peers/net-fixtures.js';
import { peerBinary } from '../../fixtures/peers/require-peer.js';
import { OID, SNMP_PEER, SNMPD, startSnmpd } from '../../fixtures/peers/snmpd.js';
import { poll } from '../../support/poll.js';
import { runProbe } from './probe-helpers.js';

const MISSING = '1.3.6.1.2.1.1.99.0';
const { community } = SNMP_PEER;

/** The UDP sockets this process holds: its socket descriptors that /proc/net/udp{,6} lists. */
function openUdpSockets(): number {
  const udpInodes = new Set<string>();
  for (const table of ['/proc/net/udp', '/proc/net/udp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const inode = line.trim().split(/\s+/)[9];
      if (inode) udpInodes.add(inode);
    }
  }
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1];
      if (inode && udpInodes.has(inode)) count++;
    } catch {
      // The descriptor closed while we listed them.
    }
  }
  return count;
}

async function expectNoSocketLeft(before: number): Promise<void> {
  await poll(() => openUdpSockets() <= before, { what: 'the probe to close its UDP socket', timeoutMs: 3_000 });
}

describe('snmp prober', () => {
  let agent: Awaited<ReturnType<typeof startSnmpd>> | undefined;
  let endpoint = '';
  before(async function () {
    this.timeout(20_000);
    peerBinary(SNMPD, 'snmpd', this);
    agent = await startSnmpd();
    endpoint = agent.endpoint;
  });
  after(() => agent?.stop());

  describe('GREEN', () => {
    it('GETs sysUpTime.0 in SNMPv2c by default, as a number', async () => {
      const r = await runProbe('SNMP', endpoint, { community });
      expect(r.ok, r.message).to.equal(true);
      expect(r.message).to.match(/^SNMP 1\.3\.6\.1\.2\.1\.1\.3\.0 = \d+ in \d+ ms$/);
      expect(r.details).to.include({ version: '2c' });
      expect(r.details.request_ms).to.be.a('number');
      expect(r.observed!.oids![OID.sysUpTime]).to.be.a('number').greaterThan(0);
      expect(r.details.values).to.deep.equal(r.observed!.oids);
    });

    it('GETs several OIDs in one request: texts, an OID value and a leading dot dropped', async () => {
      const r = await runProbe('SNMP', endpoint, { community, oids: [`.${OID.sysName}`, OID.sysLocation, OID.sysContact, OID.sysObjectID] });
      expect(r.ok, r.message).to.equal(true);
      expect(r.message).to.match(/^SNMP 4 OIDs in \d+ ms$/);
      expect(r.observed!.oids).to.deep.equal({
        [OID.sysName]: SNMP_PEER.sysName,
        [OID.sysLocation]: SNMP_PEER.sysLocation,
        [OID.sysContact]: SNMP_PEER.sysContact,
        // NET-SNMP-TC::linux
        [OID.sysObjectID]: '1.3.6.1.4.1.8072.3.2.10',
      });
    });

    it('speaks SNMPv1', async () => {
      const r = await runProbe('SNMP', endpoint, { version: '1', community, oids: [OID.sysName] });
      expect(r).to.include({ ok: true, message: r.message });
      expect(r.message).to.match(/^SNMP 1\.3\.6\.1\.2\.1\.1\.5\.0 = "router-1" in \d+ ms$/);
      expect(r.details).to.include({ version: '1' });
    });

    it('speaks SNMPv3 authPriv (SHA, AES) and authNoPriv (SHA-256)', async () => {
      const priv = await runProbe('SNMP', endpoint, { version: '3', ...SNMP_PEER.privUser, oids: [OID.sysName] });
      expect(priv.ok, priv.message).to.equal(true);
      expect(priv.observed!.oids).to.deep.equal({ [OID.sysName]: SNMP_PEER.sysName });
      expect(priv.details).to.include({ version: '3' });
      // The protocols default to SHA and AES.
      const defaults = await runProbe('SNMP', endpoint, { version: '3', username: SNMP_PEER.privUser.username, auth_password: 'auth-secret-1', priv_password: 'priv-secret-1' });
      expect(defaults.ok, defaults.message).to.equal(true);
      const auth = await runProbe('SNMP', endpoint, { version: '3', ...SNMP_PEER.authUser });
      expect(auth.ok, auth.message).to.equal(true);
      expect(auth.observed!.oids![OID.sysUpTime]).to.be.a('number');
    });

    it('closes its socket after an answer', async () => {
      const before = openUdpSockets();
      const r = await runProbe('SNMP', endpoint, { community });
      expect(r.ok, r.message).to.equal(true);
      await expectNoSocketLeft(before);
    });
  });

  describe('RED', () => {
    it('ends at its timeout on a wrong community, which the agent ignores, saying so, and closes its socket', async () => {
      const before = openUdpSockets();
      const started = Date.now();
      const r = await runProbe('SNMP', endpoint, { community: 'not-the-community' }, 600);
      expect(r).to.include({ ok: false, message: `timed out after 600 ms (no answer: wrong community, or no SNMP agent at ${endpoint})` });
      expect(Date.now() - started).to.be.within(550, 2_000);
      expect(r).to.not.have.property('observed');
      await expectNoSocketLeft(before);
    });

    it('says when the SNMPv3 auth password is wrong', async () => {
      const r = await runProbe('SNMP', endpoint, { version: '3', ...SNMP_PEER.authUser, auth_password: 'not-the-password' });
      expect(r).to.include({ ok: false, message: 'SNMPv3 authentication failed: wrong auth_password or auth_protocol' });
      const protocol = await runProbe('SNMP', endpoint, { version: '3', ...SNMP_PEER.authUser, auth_protocol: 'MD5' });
      expect(protocol).to.include({ ok: false, message: 'SNMPv3 authentication failed: wrong auth_password or auth_protocol' });
    });

    it('says when the SNMPv3 priv password is wrong (the agent drops what it cannot decrypt)', async () => {
      const before = openUdpSockets();
      const r = await runProbe('SNMP', endpoint, { version: '3', ...SNMP_PEER.privUser, priv_password: 'not-the-password' }, 600);
      expect(r).to.include({ ok: false, message: 'timed out after 600 ms (the agent answered the engine discovery, not the request: wrong priv_password or priv_protocol)' });
      await expectNoSocketLeft(before);
    });

    it('says when the SNMPv3 user is unknown, or does not take the security level', async () => {
      const unknown = await runProbe('SNMP', endpoint, { version: '3', username: 'nobody', auth_password: 'auth-secret-1' });
      expect(unknown).to.include({ ok: false, message: 'SNMPv3 user "nobody" is unknown to the agent' });
      const noPriv = await runProbe('SNMP', endpoint, { version: '3', ...SNMP_PEER.authUser, priv_password: 'priv-secret-2' });
      expect(noPriv).to.include({ ok: false, message: 'SNMPv3 user "outpost-auth" does not take security level authPriv' });
    });

    it("reports the agent's error-status (a user below its access's security level)", async () => {
      const r = await runProbe('SNMP', endpoint, { version: '3', username: SNMP_PEER.authUser.username });
      expect(r).to.include({ ok: false, message: 'SNMP error-status authorizationError' });
    });

    it('names an OID the agent does not have, and still observes the others', async () => {
      const r = await runProbe('SNMP', endpoint, { community, oids: [OID.sysName, MISSING, `${OID.sysName.slice(0, -2)}.1`] });
      expect(r).to.include({ ok: false, message: `noSuchObject for ${MISSING}, noSuchInstance for 1.3.6.1.2.1.1.5.1` });
      expect(r.observed).to.deep.equal({ oids: { [OID.sysName]: SNMP_PEER.sysName } });
    });

    it('reports noSuchName in SNMPv1, whose agents fail the whole request', async () => {
      const r = await runProbe('SNMP', endpoint, { version: '1', community, oids: [OID.sysName, MISSING] });
      expect(r).to.include({ ok: false, message: `SNMP error-status noSuchName for ${MISSING}` });
    });

    it('is RED with "connection refused" when the UDP port is closed', async () => {
      const before = openUdpSockets();
      const r = await runProbe('SNMP', await refusedEndpoint(), { community });
      expect(r).to.include({ ok: false, message: 'connection refused' });
      await expectNoSocketLeft(before);
    });

    it('is RED when the port answers something that is not SNMP', async () => {
      const garbage = await udpListener(Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n'));
      try {
        const r = await runProbe('SNMP', garbage.endpoint, { community }, 2_000);
        expect(r).to.include({ ok: false, message: `not an SNMP answer from ${garbage.endpoint}` });
      } finally {
        await garbage.close();
      }
    });

    it('ends at its timeout when nothing answers, and leaves no socket open', async () => {
      const silent = await udpListener();
      const before = openUdpSockets();
      try {
        const started = Date.now();
        const r = await runProbe('SNMP', silent.endpoint, { version: '3', ...SNMP_PEER.authUser }, 600);
        expect(r).to.include({ ok: false, message: `timed out after 600 ms (no answer: no SNMP agent at ${silent.endpoint})` });
        expect(r.responseTimeMs).to.be.within(550, 800);
        expect(Date.now() - started).to.be.within(550, 2_000);
        expect(silent.received()).to.equal(1);
        await expectNoSocketLeft(before);
      } finally {
        await silent.close();
      }
    });
  });

  describe('oid (assertions)', () => {
    const oidAssertion = (property: string, comparison: string, target?: string | number) => ({ source: 'oid', property, comparison, ...(target === undefined ? {} : { target }) });

    it('passes and fails on the values, numeric and text', async () => {
      const oids = [OID.sysUpTime, OID.sysName];
      const passing = await runProbe('SNMP', endpoint, { community, oids, assertions: [oidAssertion(OID.sysUpTime, 'greater_than', 0), oidAssertion(OID.sysName, 'equals', 'router-1')] });
      expect(passing.ok, passing.message).to.equal(true);
      expect(passing.details.assertions).to.have.length(2).and.satisfy((outcomes: { passed: boolean }[]) => outcomes.every((o) => o.passed));
      const wrongName = await runProbe('SNMP', endpoint, { community, oids, assertions: [oidAssertion(OID.sysName, 'equals', 'router-2')] });
      expect(wrongName).to.include({ ok: false, message: `oid ${OID.sysName} equals "router-2": got "router-1"` });
      const young = await runProbe('SNMP', endpoint, { community, oids, assertions: [oidAssertion(OID.sysUpTime, 'less_than', 1)] });
      expect(young.ok).to.equal(false);
      expect(young.message).to.match(/^oid 1\.3\.6\.1\.2\.1\.1\.3\.0 less_than 1: got \d+$/);
    });

    it('leaves a missing OID to the assertion naming it: not_exists passes, exists fails', async () => {
      const oids = [OID.sysName, MISSING];
      const gone = await runProbe('SNMP', endpoint, { community, oids, assertions: [oidAssertion(MISSING, 'not_exists'), oidAssertion(OID.sysName, 'equals', 'router-1')] });
      expect(gone.ok, gone.message).to.equal(true);
      expect(gone.message).to.match(new RegExp(`^SNMP 2 OIDs in \\d+ ms \\(noSuchObject for ${MISSING.replaceAll('.', '\\.')}\\)$`));
      const alone = await runProbe('SNMP', endpoint, { community, oids: [MISSING], assertions: [oidAssertion(MISSING, 'not_exists')] });
      expect(alone.ok, alone.message).to.equal(true);
      expect(alone.message).to.match(/^SNMP 1 OID in \d+ ms \(noSuchObject for 1\.3\.6\.1\.2\.1\.1\.99\.0\)$/);
      expect(alone.observed).to.deep.equal({ oids: {} });
      const wanted = await runProbe('SNMP', endpoint, { community, oids, assertions: [oidAssertion(MISSING, 'exists')] });
      expect(wanted).to.include({ ok: false, message: `oid ${MISSING} exists: got nothing` });
    });

    it('stays RED on a missing OID no assertion names', async () => {
      const r = await runProbe('SNMP', endpoint, { community, oids: [OID.sysName, MISSING], assertions: [oidAssertion(OID.sysName, 'exists')] });
      expect(r).to.include({ ok: false, message: `noSuchObject for ${MISSING}` });
    });
  });

  describe('options', () => {
    const issues = (options: Record<string, unknown>) => {
      const parsed = parseCheckOptions('SNMP', options);
      return parsed.ok ? [] : parsed.issues;
    };

    it('takes v1, v2c and v3 options, and the OIDs to GET', () => {
      expect(issues({})).to.deep.equal([]);
      expect(issues({ version: '1', community: 'c', oids: ['1.3.6.1.2.1.1.5.0', '.1.3.6.1.2.1.1.3.0'] })).to.deep.equal([]);
      expect(issues({ version: '3', username: 'u', auth_protocol: 'SHA-512', auth_password: '12345678', priv_protocol: 'AES-256R', priv_password: '12345678' })).to.deep.equal([]);
      expect(issues({ oids: [OID.sysName], assertions: [{ source: 'oid', property: `.${OID.sysName}`, comparison: 'equals', target: 'r' }] })).to.deep.equal([]);
    });

    it('refuses v3 without a username, a community in v3, and v3 keys in v2c', () => {
      expect(issues({ version: '3' })).to.deep.equal([{ path: 'username', message: 'SNMPv3 needs a username' }]);
      expect(issues({ version: '3', username: 'u', community: 'c' })).to.deep.equal([{ path: 'community', message: 'SNMPv3 has no community: it signs with username and auth_password' }]);
      expect(issues({ username: 'u' })).to.deep.equal([{ path: 'username', message: 'username is for SNMPv3: set version to "3"' }]);
    });

    it('refuses privacy without authentication, a protocol without its password, and short passwords', () => {
      expect(issues({ version: '3', username: 'u', priv_password: '12345678' })).to.deep.equal([{ path: 'auth_password', message: 'privacy (priv_password) needs authentication (auth_password) too' }]);
      expect(issues({ version: '3', username: 'u', auth_protocol: 'SHA' })).to.deep.equal([{ path: 'auth_password', message: 'auth_protocol needs auth_password' }]);
      expect(issues({ version: '3', username: 'u', auth_password: 'short' })).to.deep.equal([{ path: 'auth_password', message: 'an SNMPv3 password is at least 8 characters' }]);
    });

    it('refuses a bad OID, too many OIDs, and an oid assertion on an OID not asked', () => {
      expect(issues({ oids: ['iso.3.6.1'] })).to.deep.equal([{ path: 'oids.0', message: 'an OID is numeric, such as 1.3.6.1.2.1.1.3.0' }]);
      expect(issues({ oids: [] })).to.deep.equal([{ path: 'oids', message: 'oids lists 1 to 20 OIDs' }]);
      expect(issues({ oids: Array.from({ length: 21 }, (_, i) => `1.3.6.1.2.1.1.${i}.0`) })).to.deep.equal([{ path: 'oids', message: 'oids lists 1 to 20 OIDs' }]);
      expect(issues({ oids: [OID.sysName], assertions: [{ source: 'oid', property: OID.sysLocation, comparison: 'exists' }] })).to.deep.equal([
        { path: 'assertions.0.property', message: `${OID.sysLocation} is not one of options.oids` },
      ]);
      // Without options.oids the check asks sysUpTime.0 alone.
      expect(issues({ assertions: [{ source: 'oid', property: OID.sysUpTime, comparison: 'greater_than', target: 0 }] })).to.deep.equal([]);
    });
  });
});
