import { expect } from 'chai';
import net, { type AddressInfo } from 'node:net';
import { parseCheckOptions } from '../../../shared/src/check-options.js';
import { refusedEndpoint } from '../../fixtures/peers/net-fixtures.js';
import { peerBinary } from '../../fixtures/peers/require-peer.js';
import { LDAP_ADMIN, LDAP_BASE, LDAP_LIMITED, LDAP_PEOPLE, SLAPADD, SLAPD, startSlapd, type SlapdPeer } from '../../fixtures/peers/slapd.js';
import { poll } from '../../support/poll.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

const admin = { bind_dn: LDAP_ADMIN.dn, password: LDAP_ADMIN.password };

describe('ldap prober', () => {
  let slapd: SlapdPeer | undefined;
  before(async function () {
    this.timeout(20_000);
    peerBinary(SLAPD, 'slapd', this);
    peerBinary(SLAPADD, 'slapd', this);
    slapd = await startSlapd();
  });
  after(() => slapd?.stop());

  describe('against slapd', () => {
    it('is GREEN on an anonymous bind, with its timings', async () => {
      const r = await runProbe('LDAP', slapd!.url);
      expect(r.ok, r.message).to.equal(true);
      expect(r.message).to.match(/^LDAP anonymous bind in \d+ ms$/);
      expect(r.details.connect_ms).to.be.a('number');
      expect(r.details.bind_ms).to.be.a('number');
      expect(r).to.not.have.property('observed');
    });

    it('binds as bind_dn and counts the entries of the search', async () => {
      const r = await runProbe('LDAP', slapd!.url, { ...admin, base_dn: LDAP_BASE });
      expect(r.ok, r.message).to.equal(true);
      expect(r.message).to.match(/^LDAP bind as cn=admin,dc=example,dc=org, 5 entries in \d+ ms$/);
      expect(r.details).to.include({ entries: 5 });
      expect(r.details.search_ms).to.be.a('number');
      expect(r.observed).to.deep.equal({ entries: 5 });
    });

    it('searches with the filter and scope given', async () => {
      const people = await runProbe('LDAP', slapd!.url, { base_dn: LDAP_PEOPLE, filter: '(mail=*)', scope: 'one' });
      expect(people.message).to.match(/^LDAP anonymous bind, 3 entries in \d+ ms$/);
      const one = await runProbe('LDAP', slapd!.url, { base_dn: LDAP_BASE, filter: '(uid=bob)' });
      expect(one.message).to.match(/, 1 entry in /);
      const base = await runProbe('LDAP', slapd!.url, { base_dn: LDAP_BASE, scope: 'base' });
      expect(base.details.entries).to.equal(1);
      const none = await runProbe('LDAP', slapd!.url, { base_dn: LDAP_BASE, filter: '(uid=nobody)' });
      expect(none).to.deep.include({ ok: true, observed: { entries: 0 } });
    });

    it('passes with the count the server capped at its size limit', async () => {
      const r = await runProbe('LDAP', slapd!.url, { bind_dn: LDAP_LIMITED.dn, password: LDAP_LIMITED.password, base_dn: LDAP_BASE, filter: '(mail=*)' });
      expect(r.ok, r.message).to.equal(true);
      expect(r.details.entries).to.equal(LDAP_LIMITED.sizeLimit);
    });

    it('is RED with "invalid credentials" for a wrong password', async () => {
      const r = await runProbe('LDAP', slapd!.url, { bind_dn: LDAP_ADMIN.dn, password: 'wrong' });
      expect(r).to.include({ ok: false, message: 'invalid credentials for cn=admin,dc=example,dc=org (LDAP 49)' });
    });

    it('is RED when the base DN does not exist', async () => {
      const r = await runProbe('LDAP', slapd!.url, { base_dn: 'ou=gone,dc=example,dc=org' });
      expect(r).to.include({ ok: false, message: 'base DN "ou=gone,dc=example,dc=org" not found (noSuchObject)' });
      expect(r.details.bind_ms).to.be.a('number');
      expect(r).to.not.have.property('observed');
    });

    it('is RED, without connecting, for a filter that does not parse', async () => {
      const r = await runProbe('LDAP', slapd!.url, { base_dn: LDAP_BASE, filter: '(cn=alice' });
      expect(r.ok).to.equal(false);
      expect(r.message).to.match(/^filter \(cn=alice is not a valid LDAP filter: /);
      expect(r.details).to.deep.equal({});
    });

    it('is RED when a plain client meets the ldaps port', async () => {
      const r = await runProbe('LDAP', slapd!.ldapsUrl.replace('ldaps:', 'ldap:'), {}, 2_000);
      expect(r).to.include({ ok: false, message: 'the server closed the connection before answering' });
    });
  });

  describe('entries and attribute (assertions)', () => {
    const search = { base_dn: LDAP_PEOPLE, filter: '(uid=alice)' };

    it('observes the first entry\'s attributes, lower-cased, when an assertion reads one', async () => {
      const r = await runProbe('LDAP', slapd!.url, { ...search, assertions: [{ source: 'attribute', property: 'Mail', comparison: 'equals', target: 'alice@example.org' }] });
      expect(r.ok, r.message).to.equal(true);
      expect(r.observed!.attributes).to.deep.include({ mail: ['alice@example.org'], uid: ['alice'], objectclass: ['inetOrgPerson'] });
    });

    it('passes and fails on entries', async () => {
      const three = await runProbe('LDAP', slapd!.url, { base_dn: LDAP_PEOPLE, filter: '(mail=*)', assertions: [{ source: 'entries', comparison: 'equals', target: 3 }] });
      expect(three.ok, three.message).to.equal(true);
      const atLeastFive = await runProbe('LDAP', slapd!.url, { base_dn: LDAP_PEOPLE, filter: '(mail=*)', assertions: [{ source: 'entries', comparison: 'greater_or_equal', target: 5 }] });
      expect(atLeastFive).to.include({ ok: false, message: 'entries greater_or_equal 5: got 3' });
    });

    it('fails an attribute assertion that does not hold, or on an entry that is not there', async () => {
      const wrong = await runProbe('LDAP', slapd!.url, { ...search, assertions: [{ source: 'attribute', property: 'mail', comparison: 'contains', target: 'bob@' }] });
      expect(wrong).to.include({ ok: false, message: 'attribute mail contains "bob@": got "alice@example.org"' });
      const missing = await runProbe('LDAP', slapd!.url, { base_dn: LDAP_PEOPLE, filter: '(uid=nobody)', assertions: [{ source: 'attribute', property: 'mail', comparison: 'exists' }] });
      expect(missing.ok).to.equal(false);
      expect(missing.observed).to.deep.equal({ entries: 0, attributes: {} });
    });
  });

  describe('ldaps', () => {
    it('is GREEN with ca_certificate trusting the server', async () => {
      const r = await runProbe('LDAP', slapd!.ldapsUrl, { ca_certificate: slapd!.certificate, base_dn: LDAP_BASE });
      expect(r.ok, r.message).to.equal(true);
      expect(r.details.tls_ms).to.be.a('number');
      expect(r.details.entries).to.equal(5);
    });

    it('is RED for a certificate it cannot trust, or for another name', async () => {
      const untrusted = await runProbe('LDAP', slapd!.ldapsUrl);
      expect(untrusted).to.include({ ok: false, message: 'TLS certificate is self-signed' });
      const otherName = await runProbe('LDAP', slapd!.ldapsUrl.replace('127.0.0.1', 'localhost'), { ca_certificate: slapd!.certificate });
      expect(otherName).to.include({ ok: false, message: 'TLS certificate does not match the host name' });
    });

    it('is GREEN with verify_tls false', async () => {
      const r = await runProbe('LDAP', slapd!.ldapsUrl, { verify_tls: false });
      expect(r.ok, r.message).to.equal(true);
    });

    it('is RED when the port does not speak TLS', async () => {
      const r = await runProbe('LDAP', slapd!.url.replace('ldap:', 'ldaps:'), { verify_tls: false });
      expect(r.ok).to.equal(false);
      expect(r.message).to.match(/^TLS handshake failed: /);
    });

    it('is RED at once for a ca_certificate that is not a certificate', async () => {
      const r = await runProbe('LDAP', slapd!.ldapsUrl, { ca_certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' });
      expect(r.ok).to.equal(false);
      expect(r.message).to.match(/^ca_certificate is not a PEM certificate/);
    });
  });

  it('ends at its timeout in the middle of a search and closes its socket', async () => {
    const peer = await cannedLdapServer();
    try {
      const r = await runProbe('LDAP', `ldap://127.0.0.1:${peer.port}`, { base_dn: LDAP_BASE }, 600);
      expect(r).to.include({ ok: false, message: 'timed out after 600 ms' });
      expect(r.details.bind_ms).to.be.a('number');
      await poll(() => peer.open() === 0, { what: 'the probe to close its socket', timeoutMs: 3_000 });
    } finally {
      await peer.close();
    }
  });

  it('is RED with its own message when the server rejects the filter', async () => {
    const peer = await cannedLdapServer(18);
    try {
      const r = await runProbe('LDAP', `ldap://127.0.0.1:${peer.port}`, { base_dn: LDAP_BASE, filter: '(cn:caseExactMatch:=x)' }, 2_000);
      expect(r.ok).to.equal(false);
      expect(r.message).to.equal('the server rejected the filter (cn:caseExactMatch:=x): inappropriate matching (LDAP 18)');
    } finally {
      await peer.close();
    }
  });

  it('is RED with "connection refused" on ldaps too', async () => {
    const r = await runProbe('LDAP', `ldaps://${await refusedEndpoint()}`);
    expect(r).to.include({ ok: false, message: 'connection refused' });
  });

  itFailsLikeAnyProtocol('LDAP', {
    otherProtocol: 'HTTP/1.1 400 Bad Request\r\n\r\n',
    otherProtocolMessage: /^not an LDAP server/,
    endpointFor: (hostPort) => `ldap://${hostPort}`,
  });

  describe('options', () => {
    const issues = (raw: unknown) => {
      const parsed = parseCheckOptions('LDAP', raw);
      return parsed.ok ? [] : parsed.issues;
    };

    it('takes a bind, a search and TLS options', () => {
      expect(parseCheckOptions('LDAP', { ...admin, base_dn: LDAP_BASE, filter: '(mail=*)', scope: 'one', verify_tls: false }).ok).to.equal(true);
      expect(parseCheckOptions('LDAP', {}).ok).to.equal(true);
    });

    it('refuses a password without bind_dn, and a filter or scope without base_dn', () => {
      expect(issues({ password: 'x' })).to.deep.equal([{ path: 'bind_dn', message: 'a password binds as bind_dn: give bind_dn too' }]);
      expect(issues({ filter: '(mail=*)' })).to.deep.equal([{ path: 'base_dn', message: 'filter belongs to a search: give base_dn too' }]);
      expect(issues({ scope: 'one' })).to.deep.equal([{ path: 'base_dn', message: 'scope belongs to a search: give base_dn too' }]);
    });

    it('refuses assertions on entries or attribute without a search, and an unknown scope', () => {
      expect(issues({ assertions: [{ source: 'entries', comparison: 'equals', target: 3 }] })).to.deep.equal([{ path: 'assertions.0.source', message: 'source entries needs options.base_dn' }]);
      expect(issues({ base_dn: LDAP_BASE, assertions: [{ source: 'attribute', comparison: 'exists' }] })[0]!.path).to.equal('assertions.0.property');
      expect(issues({ base_dn: LDAP_BASE, scope: 'subtree' })[0]!.path).to.equal('scope');
    });
  });
});

/**
 * Answers the first message (a bind) with success, then the search with a SearchResultDone of
 * `searchResultCode`, or with nothing: the search then waits for ever.
 */
async function cannedLdapServer(searchResultCode?: number): Promise<{ port: number; open(): number; close(): Promise<void> }> {
  const hex = (n: number) => n.toString(16).padStart(2, '0');
  // LDAPMessage { messageID id, op { resultCode, matchedDN "", diagnosticMessage "" } }: a bindResponse (61) or a searchResDone (65).
  const result = (op: number, messageId: number, code: number) => Buffer.from(`300c0201${hex(messageId)}${hex(op)}070a01${hex(code)}04000400`, 'hex');
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let requests = 0;
    // Each request starts 30 len 02 01 id (short forms at these sizes): the reply carries its message id.
    socket.on('data', (request: Buffer) => {
      requests++;
      if (requests === 1) socket.write(result(0x61, request[4]!, 0));
      else if (searchResultCode !== undefined && requests === 2) socket.write(result(0x65, request[4]!, searchResultCode));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    open: () => sockets.size,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
