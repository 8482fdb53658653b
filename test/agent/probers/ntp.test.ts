import { expect } from 'chai';
import { parseCheckOptions } from '../../../shared/src/check-options.js';
import { CHRONYD, ntpReply, ntpStandIn, startChronyd, type NtpServer } from '../../fixtures/peers/chronyd.js';
import { refusedEndpoint, udpListener, type UdpListener } from '../../fixtures/peers/net-fixtures.js';
import { peerBinary } from '../../fixtures/peers/require-peer.js';
import { poll } from '../../support/poll.js';
import { runProbe } from './probe-helpers.js';

const openUdpSockets = () => process.getActiveResourcesInfo().filter((r) => r === 'UDPWrap').length;

async function withStandIn(reply: (request: Buffer) => Buffer[], test: (peer: UdpListener) => Promise<unknown>): Promise<void> {
  const peer = await ntpStandIn(reply);
  try {
    await test(peer);
  } finally {
    await peer.close();
  }
}

describe('ntp prober', () => {
  let synchronised: NtpServer | undefined;
  let unsynchronised: NtpServer | undefined;
  before(async function () {
    this.timeout(30_000);
    peerBinary(CHRONYD, 'chrony', this);
    [synchronised, unsynchronised] = await Promise.all([startChronyd({ synchronised: true }), startChronyd({ synchronised: false })]);
  });
  after(async () => {
    await synchronised?.stop();
    await unsynchronised?.stop();
  });

  it('is GREEN with the offset, delay and stratum of a synchronised chronyd', async () => {
    const r = await runProbe('NTP', synchronised!.endpoint);
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^NTP stratum 8, offset [+-]\d+\.\d ms, delay \d+\.\d ms$/);
    // chronyd serves this machine's own clock: the offset is measurement error, well under a few ms.
    expect(Math.abs(r.details.offset_ms as number)).to.be.lessThan(50);
    expect(r.details.delay_ms).to.be.a('number').at.least(0);
    // chronyd's reference for `local` is 127.127.1.1, the old local-clock address.
    expect(r.details).to.include({ stratum: 8, leap: 'none', reference: '127.127.1.1' });
    expect(r.details.root_delay_ms).to.be.a('number');
    expect(r.details.root_dispersion_ms).to.be.a('number');
    expect(r.observed).to.deep.equal({ offset_ms: r.details.offset_ms, stratum: 8 });
    expect(r).to.not.have.nested.property('details.dns_ms');
  });

  it('is RED when chronyd is not synchronised (leap alarm, stratum 0 on the wire)', async () => {
    const r = await runProbe('NTP', unsynchronised!.endpoint);
    expect(r).to.include({ ok: false, message: 'NTP server is not synchronised (stratum 16)' });
    expect(r.details).to.include({ stratum: 16, leap: 'alarm' });
    expect(r.observed).to.include({ stratum: 16 });
  });

  describe('offset_ms and stratum (assertions)', () => {
    it('passes and fails on the offset and the stratum', async () => {
      const pass = await runProbe('NTP', synchronised!.endpoint, {
        assertions: [
          { source: 'offset_ms', comparison: 'less_than', target: '1000' },
          { source: 'offset_ms', comparison: 'greater_than', target: '-1000' },
          { source: 'stratum', comparison: 'equals', target: '8' },
        ],
      });
      expect(pass.ok, pass.message).to.equal(true);
      expect((pass.details.assertions as { passed: boolean }[]).map((a) => a.passed)).to.deep.equal([true, true, true]);
      const fail = await runProbe('NTP', synchronised!.endpoint, { assertions: [{ source: 'stratum', comparison: 'less_than', target: '3' }] });
      expect(fail).to.include({ ok: false, message: 'stratum less_than "3": got 8' });
      const late = await runProbe('NTP', synchronised!.endpoint, { assertions: [{ source: 'offset_ms', comparison: 'less_than', target: '-1000' }] });
      expect(late.ok).to.equal(false);
      expect(late.message).to.match(/^offset_ms less_than "-1000": got -?\d/);
    });

    it('leaves an unsynchronised server to an assertion on the stratum', async () => {
      const expected = await runProbe('NTP', unsynchronised!.endpoint, { assertions: [{ source: 'stratum', comparison: 'equals', target: '16' }] });
      expect(expected).to.include({ ok: true, message: 'NTP server is not synchronised (stratum 16)' });
      const refused = await runProbe('NTP', unsynchronised!.endpoint, { assertions: [{ source: 'stratum', comparison: 'less_than', target: '16' }] });
      expect(refused).to.include({ ok: false, message: 'stratum less_than "16": got 16' });
    });
  });

  describe('replies chronyd does not send (a stand-in)', () => {
    it("is RED with the kiss code of a kiss-o'-death", async () => {
      await withStandIn(
        (request) => [ntpReply(request, { leap: 3, stratum: 0, refId: 'RATE' })],
        async (peer) => {
          const r = await runProbe('NTP', peer.endpoint);
          expect(r).to.deep.include({ ok: false, message: "NTP kiss-o'-death RATE (rate exceeded, poll less often)", observed: { stratum: 0 } });
          expect(r.details).to.include({ stratum: 0, reference: 'RATE' });
        },
      );
      await withStandIn(
        (request) => [ntpReply(request, { stratum: 0, refId: 'DENY' })],
        async (peer) => expect(await runProbe('NTP', peer.endpoint)).to.include({ ok: false, message: "NTP kiss-o'-death DENY (access denied)" }),
      );
    });

    it("reads ntpd's INIT (never synchronised yet) as stratum 16, not as a refusal", async () => {
      await withStandIn(
        (request) => [ntpReply(request, { leap: 3, stratum: 0, refId: 'INIT' })],
        async (peer) => {
          const r = await runProbe('NTP', peer.endpoint);
          expect(r).to.include({ ok: false, message: 'NTP server is not synchronised (stratum 16)' });
          expect(r.details).to.include({ reference: 'INIT', stratum: 16 });
        },
      );
    });

    it('names a stratum 1 source, and is RED on the leap alarm alone', async () => {
      await withStandIn(
        (request) => [ntpReply(request, { stratum: 1, refId: 'GPS' })],
        async (peer) => {
          const r = await runProbe('NTP', peer.endpoint);
          expect(r.ok, r.message).to.equal(true);
          expect(r.details).to.include({ stratum: 1, reference: 'GPS' });
        },
      );
      await withStandIn(
        (request) => [ntpReply(request, { leap: 3, stratum: 2, refId: '\x0a\0\0\x01' })],
        async (peer) => {
          const r = await runProbe('NTP', peer.endpoint);
          expect(r).to.include({ ok: false, message: 'NTP server is not synchronised (leap indicator alarm)' });
          expect(r.details).to.include({ reference: '10.0.0.1', stratum: 2 });
        },
      );
    });

    it('skips a reply to another request (its originate timestamp is not ours) and takes the one that follows', async () => {
      const other = (request: Buffer) => {
        const stale = Buffer.from(request);
        stale.writeUInt32BE((stale.readUInt32BE(40) ^ 1) >>> 0, 40);
        return stale;
      };
      await withStandIn(
        (request) => [ntpReply(other(request), { stratum: 3, refId: '\x0a\0\0\x02' }), ntpReply(request, { stratum: 2, refId: '\x0a\0\0\x01' })],
        async (peer) => {
          const r = await runProbe('NTP', peer.endpoint);
          expect(r.ok, r.message).to.equal(true);
          expect(r.details).to.include({ stratum: 2 });
        },
      );
      await withStandIn(
        (request) => [ntpReply(other(request), { stratum: 3, refId: '\x0a\0\0\x02' })],
        async (peer) => expect(await runProbe('NTP', peer.endpoint, {}, 600)).to.include({ ok: false, message: 'no reply within 600 ms (ignored 1 datagram answering another request)' }),
      );
    });

    it('is RED at once for a datagram that is no NTP reply', async () => {
      await withStandIn(
        (request) => [request],
        async (peer) => expect(await runProbe('NTP', peer.endpoint)).to.include({ ok: false, message: 'not an NTP reply (mode 3)' }),
      );
      const garbage = await udpListener(Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n'));
      try {
        expect(await runProbe('NTP', garbage.endpoint)).to.include({ ok: false, message: 'not an NTP reply (28 bytes)' });
      } finally {
        await garbage.close();
      }
    });
  });

  it('is RED with "connection refused" when nothing listens on the port', async () => {
    const r = await runProbe('NTP', await refusedEndpoint());
    expect(r).to.include({ ok: false, message: 'connection refused (ICMP port unreachable)' });
  });


  it('ends at its timeout when the server never answers, and leaves no socket open', async () => {
    const silent = await udpListener();
    try {
      const before = openUdpSockets();
      const started = Date.now();
      const r = await runProbe('NTP', silent.endpoint, {}, 600);
      expect(r).to.include({ ok: false, message: 'no reply within 600 ms' });
      expect(r.responseTimeMs).to.be.within(550, 800);
      expect(Date.now() - started).to.be.within(550, 2_000);
      expect(silent.received()).to.equal(1);
      await poll(() => openUdpSockets() === before, { what: 'the probe to close its socket', timeoutMs: 3_000 });
    } finally {
      await silent.close();
    }
  });

  describe('options', () => {
    it('takes the common options only', () => {
      expect(parseCheckOptions('NTP', {}).ok).to.equal(true);
      expect(parseCheckOptions('NTP', { assertions: [{ source: 'offset_ms', comparison: 'less_than', target: '100' }] }).ok).to.equal(true);
      const extra = parseCheckOptions('NTP', { send: 'x' });
      expect(extra.ok).to.equal(false);
    });

    it('refuses a source NTP does not offer', () => {
      const r = parseCheckOptions('NTP', { assertions: [{ source: 'body', comparison: 'contains', target: 'x' }] });
      expect(r.ok).to.equal(false);
    });
  });
});
