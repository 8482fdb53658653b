import { expect } from 'chai';
import dgram from 'node:dgram';
import radius from 'radius';
import { parseCheckOptions } from '../../../shared/src/check-options.js';
import { FREERADIUS, RADIUS_BLOCKED, RADIUS_CHALLENGED, RADIUS_SECRET, RADIUS_USER, startFreeradius } from '../../fixtures/peers/freeradius.js';
import { refusedEndpoint, udpListener } from '../../fixtures/peers/net-fixtures.js';
import { peerBinary } from '../../fixtures/peers/require-peer.js';
import { poll } from '../../support/poll.js';
import { runProbe } from './probe-helpers.js';

const alice = { secret: RADIUS_SECRET, ...RADIUS_USER };
const openUdpSockets = () => process.getActiveResourcesInfo().filter((r) => r === 'UDPSocketWrap' || r === 'UDPWrap').length;

describe('radius prober', () => {
  let freeradius: Awaited<ReturnType<typeof startFreeradius>> | undefined;
  before(async function () {
    this.timeout(20_000);
    peerBinary(FREERADIUS, 'freeradius', this);
    freeradius = await startFreeradius();
  });
  after(() => freeradius?.stop());

  describe('against FreeRADIUS', () => {
    it('is GREEN on Access-Accept', async () => {
      const r = await runProbe('RADIUS', freeradius!.endpoint, alice);
      expect(r.ok, r.message).to.equal(true);
      expect(r.message).to.match(/^RADIUS Access-Accept for alice in \d+ ms$/);
      expect(r.details).to.include({ attempts: 1, code: 'Access-Accept' });
      expect(r.details.request_ms).to.be.a('number');
      expect(r.observed).to.deep.equal({ code: 'Access-Accept' });
    });

    it('is RED on Access-Reject for a wrong or missing password', async () => {
      const wrong = await runProbe('RADIUS', freeradius!.endpoint, { ...alice, password: 'not-it' });
      expect(wrong).to.deep.include({ ok: false, message: 'Access-Reject: wrong username or password', observed: { code: 'Access-Reject' } });
      const none = await runProbe('RADIUS', freeradius!.endpoint, { secret: RADIUS_SECRET, username: RADIUS_USER.username });
      expect(none).to.include({ ok: false, message: 'Access-Reject: wrong username or password' });
    });

    it('says what the server says in its Reply-Message', async () => {
      const r = await runProbe('RADIUS', freeradius!.endpoint, { secret: RADIUS_SECRET, username: RADIUS_BLOCKED.username, password: 'any' });
      expect(r).to.include({ ok: false, message: 'Access-Reject: wrong username or password; the server says "Account disabled"' });
      expect(r.details.reply_message).to.equal(RADIUS_BLOCKED.replyMessage);
    });

    it('is RED on Access-Challenge (a second factor is asked)', async () => {
      const r = await runProbe('RADIUS', freeradius!.endpoint, { secret: RADIUS_SECRET, username: RADIUS_CHALLENGED.username, password: 'any' });
      expect(r).to.deep.include({ ok: false, message: `Access-Challenge: the server asks for a second factor; the server says "${RADIUS_CHALLENGED.replyMessage}"`, observed: { code: 'Access-Challenge' } });
    });

    it('ends at its timeout when FreeRADIUS drops a request signed with a wrong secret, having sent it three times', async () => {
      const before = openUdpSockets();
      const r = await runProbe('RADIUS', freeradius!.endpoint, { ...alice, secret: 'not-the-secret' }, 900);
      expect(r).to.include({ ok: false, message: 'timed out after 900 ms: no answer from the RADIUS server (unknown client, or wrong secret)' });
      expect(r.details.attempts).to.equal(3);
      expect(r).to.not.have.property('observed');
      await poll(() => openUdpSockets() <= before, { what: 'the probe to close its socket', timeoutMs: 3_000 });
    });
  });

  describe('code (assertions)', () => {
    it('lets an assertion on code decide: a reject expected passes', async () => {
      const r = await runProbe('RADIUS', freeradius!.endpoint, { ...alice, password: 'not-it', assertions: [{ source: 'code', comparison: 'equals', target: 'Access-Reject' }] });
      expect(r.ok, r.message).to.equal(true);
      expect(r.message).to.match(/^RADIUS Access-Reject in \d+ ms$/);
    });

    it('fails when the code is not the one asserted', async () => {
      const r = await runProbe('RADIUS', freeradius!.endpoint, { ...alice, password: 'not-it', assertions: [{ source: 'code', comparison: 'equals', target: 'Access-Accept' }] });
      expect(r).to.include({ ok: false, message: 'code equals "Access-Accept": got "Access-Reject"' });
    });
  });

  describe('replies', () => {
    it('sends the same packet again when the first is lost', async () => {
      const peer = await radiusResponder({ secret: RADIUS_SECRET, dropFirst: 1 });
      try {
        const r = await runProbe('RADIUS', peer.endpoint, alice, 1_500);
        expect(r.ok, r.message).to.equal(true);
        expect(r.details.attempts).to.equal(2);
        expect(peer.requests()).to.have.length(2);
        expect(peer.requests()[0]!.equals(peer.requests()[1]!)).to.equal(true);
      } finally {
        await peer.close();
      }
    });

    it('is RED when the reply is signed with another secret', async () => {
      const peer = await radiusResponder({ secret: 'another-secret', decodeWith: RADIUS_SECRET });
      try {
        const r = await runProbe('RADIUS', peer.endpoint, alice, 1_500);
        expect(r).to.include({ ok: false, message: 'the reply does not verify with this secret (wrong secret?)' });
        expect(r).to.not.have.property('observed');
      } finally {
        await peer.close();
      }
    });

    it('ignores a reply to another request (another identifier)', async () => {
      const peer = await radiusResponder({ secret: RADIUS_SECRET, identifierOffset: 1 });
      try {
        const r = await runProbe('RADIUS', peer.endpoint, alice, 600);
        expect(r.message).to.match(/^timed out after 600 ms/);
      } finally {
        await peer.close();
      }
    });

    it('is RED when the port answers something that is not RADIUS', async () => {
      const garbage = await udpListener(Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n'));
      try {
        const r = await runProbe('RADIUS', garbage.endpoint, alice, 1_500);
        expect(r).to.include({ ok: false, message: 'not a RADIUS reply' });
      } finally {
        await garbage.close();
      }
    });

    it('is RED with "connection refused" when nothing listens on the port', async () => {
      const r = await runProbe('RADIUS', await refusedEndpoint(), alice, 1_500);
      expect(r).to.include({ ok: false, message: 'connection refused' });
    });
  });

  describe('options', () => {
    const issues = (raw: unknown) => {
      const parsed = parseCheckOptions('RADIUS', raw);
      return parsed.ok ? [] : parsed.issues;
    };

    it('takes a secret, a username, a password and a NAS-Identifier', () => {
      expect(parseCheckOptions('RADIUS', { ...alice, nas_identifier: 'probe-1' }).ok).to.equal(true);
      expect(parseCheckOptions('RADIUS', { secret: 's', username: 'u', assertions: [{ source: 'code', comparison: 'equals', target: 'Access-Reject' }] }).ok).to.equal(true);
    });

    it('refuses a check without secret or username, and a password RADIUS cannot hide', () => {
      expect(issues({ username: 'u' }).map((i) => i.path)).to.deep.equal(['secret']);
      expect(issues({ secret: 's' }).map((i) => i.path)).to.deep.equal(['username']);
      expect(issues({ secret: 's', username: 'u', password: 'x'.repeat(129) }).map((i) => i.path)).to.deep.equal(['password']);
      expect(issues({ ...alice, filter: '(a=b)' })).to.have.length(1);
    });
  });
});

interface Responder {
  endpoint: string;
  requests(): Buffer[];
  close(): Promise<void>;
}

/** Answers Access-Accept signed with `secret`; drops the first `dropFirst` requests, or answers with a shifted identifier. */
async function radiusResponder(o: { secret: string; decodeWith?: string; dropFirst?: number; identifierOffset?: number }): Promise<Responder> {
  const socket = dgram.createSocket('udp4');
  const requests: Buffer[] = [];
  socket.on('message', (msg, from) => {
    requests.push(msg);
    if (requests.length <= (o.dropFirst ?? 0)) return;
    const packet = radius.decode({ packet: msg, secret: o.decodeWith ?? o.secret });
    packet.identifier = (packet.identifier + (o.identifierOffset ?? 0)) % 256;
    socket.send(radius.encode_response({ packet, code: 'Access-Accept', secret: o.secret }), from.port, from.address);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
  return {
    endpoint: `127.0.0.1:${socket.address().port}`,
    requests: () => requests,
    close: () => new Promise<void>((r) => socket.close(() => r())),
  };
}
