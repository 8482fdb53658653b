import { expect } from 'chai';
import { parseCheckOptions } from '../../../shared/src/check-options.js';
import { refusedEndpoint, udpListener } from '../../fixtures/peers/net-fixtures.js';
import { peerBinary } from '../../fixtures/peers/require-peer.js';
import { SOCAT, startUdpEcho } from '../../fixtures/peers/udp-echo.js';
import { poll } from '../../support/poll.js';
import { runProbe } from './probe-helpers.js';

const openUdpSockets = () => process.getActiveResourcesInfo().filter((r) => r === 'UDPWrap').length;

describe('udp prober', () => {
  let echo: Awaited<ReturnType<typeof startUdpEcho>> | undefined;
  before(async function () {
    this.timeout(20_000);
    peerBinary(SOCAT, 'socat', this);
    echo = await startUdpEcho();
  });
  after(() => echo?.stop());

  it('is GREEN with the datagram a real echo service sends back, escapes decoded', async () => {
    const r = await runProbe('UDP', echo!.endpoint, { send: 'ping\\r\\n\\x00\\t\\\\' });
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^UDP reply of 9 bytes in \d+(\.\d)? ms$/);
    expect(r.details).to.include({ bytes: 9 });
    expect(r.details.response_ms).to.be.a('number');
    expect(r.observed).to.deep.equal({ body: 'ping\r\n\0\t\\', body_hex: '70696e670d0a00095c' });
  });

  it('sends send_hex as bytes, and reads a reply that is not UTF-8 as latin1', async () => {
    const r = await runProbe('UDP', echo!.endpoint, { send_hex: 'FF00fe41' });
    expect(r.ok, r.message).to.equal(true);
    expect(r.observed).to.deep.equal({ body: '\u00ff\u0000\u00feA', body_hex: 'ff00fe41' });
  });

  it('observes the first 4 KiB of a longer reply, and counts all its bytes', async () => {
    const r = await runProbe('UDP', echo!.endpoint, { send: 'é'.repeat(2_049) });
    expect(r.ok, r.message).to.equal(true);
    expect(r.details).to.include({ bytes: 4_098 });
    expect(r.observed!.body).to.equal('é'.repeat(2_048));
    expect(r.observed!.body_hex).to.have.length(8_192);
  });

  describe('body and body_hex (assertions)', () => {
    it('passes and fails on the reply', async () => {
      const pass = await runProbe('UDP', echo!.endpoint, {
        send: 'status\\n',
        assertions: [
          { source: 'body', comparison: 'contains', target: 'status' },
          { source: 'body_hex', comparison: 'equals', target: '7374617475730a' },
        ],
      });
      expect(pass.ok, pass.message).to.equal(true);
      const fail = await runProbe('UDP', echo!.endpoint, { send: 'status\\n', assertions: [{ source: 'body', comparison: 'contains', target: 'OK' }] });
      expect(fail).to.include({ ok: false, message: 'body contains "OK": got "status\\n"' });
    });
  });

  it('is RED with "connection refused" when the port is closed (ICMP port unreachable)', async () => {
    const r = await runProbe('UDP', await refusedEndpoint(), { send: 'x' });
    expect(r).to.include({ ok: false, message: 'connection refused (ICMP port unreachable)' });
  });


  it('ends at its timeout when nothing comes back, and leaves no socket open', async () => {
    const silent = await udpListener();
    try {
      const before = openUdpSockets();
      const started = Date.now();
      const r = await runProbe('UDP', silent.endpoint, { send_hex: '00' }, 600);
      expect(r).to.include({ ok: false, message: 'no reply within 600 ms' });
      expect(r).to.not.have.property('observed');
      expect(r.responseTimeMs).to.be.within(550, 800);
      expect(Date.now() - started).to.be.within(550, 2_000);
      expect(silent.received()).to.equal(1);
      await poll(() => openUdpSockets() === before, { what: 'the probe to close its socket', timeoutMs: 3_000 });
    } finally {
      await silent.close();
    }
  });

  it('says why when options an older control plane let through cannot be sent', async () => {
    const escape = await runProbe('UDP', echo!.endpoint, { send: 'bad \\q' });
    expect(escape).to.include({ ok: false, message: 'bad send option: "\\q" at character 5 is not an escape (\\r, \\n, \\t, \\\\ or \\xHH)' });
    expect((await runProbe('UDP', echo!.endpoint, {})).message).to.equal('bad send option: give send or send_hex');
  });

  describe('options', () => {
    it('takes send or send_hex', () => {
      expect(parseCheckOptions('UDP', { send: 'hello\\r\\n' }).ok).to.equal(true);
      expect(parseCheckOptions('UDP', { send_hex: '0aFF' }).ok).to.equal(true);
    });

    it('refuses both, and neither', () => {
      const both = parseCheckOptions('UDP', { send: 'x', send_hex: '00' });
      expect(both).to.deep.equal({ ok: false, issues: [{ path: 'send', message: 'a UDP check sends one datagram: give send or send_hex (not both)' }] });
      const neither = parseCheckOptions('UDP', {});
      expect(neither).to.deep.equal({ ok: false, issues: [{ path: 'send', message: 'a UDP check sends one datagram: give send or send_hex (not both)' }] });
    });

    it('refuses bad hex and a bad escape', () => {
      for (const sendHex of ['abc', 'zz', '0x00', '']) {
        const r = parseCheckOptions('UDP', { send_hex: sendHex });
        expect(r.ok, sendHex).to.equal(false);
        if (!r.ok) expect(r.issues[0]!.path).to.equal('send_hex');
      }
      const escape = parseCheckOptions('UDP', { send: 'bad \\q' });
      expect(escape.ok).to.equal(false);
      if (!escape.ok) expect(escape.issues[0]!.path).to.equal('send');
    });
  });
});
