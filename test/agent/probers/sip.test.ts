import net, { type AddressInfo } from 'node:net';
import { expect } from 'chai';
import { parseCheckOptions } from '../../../shared/src/check-options.js';
import { refusedEndpoint, udpListener } from '../../fixtures/peers/net-fixtures.js';
import { peerBinary } from '../../fixtures/peers/require-peer.js';
import { requestHeaders, scriptedSipPeer, sipResponse, type SipRequestHeaders } from '../../fixtures/peers/sip-wire.js';
import { SIPP, startSipp, type SippOptions, type SippPeer } from '../../fixtures/peers/sipp.js';
import { poll } from '../../support/poll.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

const openUdpSockets = () => process.getActiveResourcesInfo().filter((r) => r === 'UDPWrap').length;
const statusIs = (target: number) => ({ assertions: [{ source: 'status', comparison: 'equals', target }] });

describe('sip prober', () => {
  for (const transport of ['udp', 'tcp'] as const) {
    describe(`against SIPp over ${transport.toUpperCase()}`, () => {
      const peers: Partial<Record<'ok' | 'notFound', SippPeer>> = {};
      before(async function () {
        this.timeout(25_000);
        peerBinary(SIPP, 'sip-tester', this);
        const start = (status: number, reason: string) => startSipp({ transport, status, reason } satisfies SippOptions);
        peers.ok = await start(200, 'OK');
        peers.notFound = await start(404, 'Not Found');
      });
      after(async () => {
        await peers.ok?.stop();
        await peers.notFound?.stop();
      });

      it('is GREEN on 200 OK, past the 100 Trying, with the server and what it allows', async () => {
        const r = await runProbe('SIP', peers.ok!.endpoint);
        expect(r.ok, r.message).to.equal(true);
        expect(r.message).to.match(/^SIP 200 OK in \d+ ms$/);
        expect(r.observed).to.deep.equal({ status: 200 });
        expect(r.details).to.include({ server: 'SIPp outpost-test', allow: 'INVITE, ACK, CANCEL, OPTIONS, BYE' });
        expect(r.details.response_ms).to.be.a('number');
        if (transport === 'tcp') expect(r.details.connect_ms).to.be.a('number');
        else expect(r.details).to.include({ retransmissions: 0 }).and.not.have.property('connect_ms');
      });

      it('is RED with the status and reason of a final response that is not 2xx', async () => {
        const r = await runProbe('SIP', peers.notFound!.endpoint);
        expect(r).to.deep.include({ ok: false, message: 'SIP 404 Not Found', observed: { status: 404 } });
      });

      it('leaves the status to an assertion on it, which decides', async () => {
        const expected404 = await runProbe('SIP', peers.notFound!.endpoint, statusIs(404));
        expect(expected404.ok, expected404.message).to.equal(true);
        expect(expected404.message).to.match(/^SIP 404 Not Found in \d+ ms$/);
        expect(expected404.details.assertions).to.deep.equal([{ source: 'status', comparison: 'equals', target: 404, actual: '404', passed: true }]);
        const got200 = await runProbe('SIP', peers.ok!.endpoint, statusIs(404));
        expect(got200).to.include({ ok: false, message: 'status equals 404: got 200' });
      });
    });
  }

  describe('over UDP', () => {
    it('is RED with "connection refused" when the port is closed', async () => {
      const r = await runProbe('SIP', `sip:${await refusedEndpoint()}`);
      expect(r).to.include({ ok: false, message: 'connection refused' });
      expect(r).to.not.have.property('observed');
    });

    it('is RED at once when the port answers something that is not SIP', async () => {
      const garbage = await udpListener(Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n'));
      try {
        const r = await runProbe('SIP', `sip:${garbage.endpoint}`, {}, 2_000);
        expect(r).to.include({ ok: false, message: 'not a SIP response' });
        expect(r.responseTimeMs).to.be.below(500);
      } finally {
        await garbage.close();
      }
    });

    it('sends the request again per timer E until the timeout, then closes its socket', async () => {
      const silent = await udpListener();
      try {
        const before = openUdpSockets();
        const r = await runProbe('SIP', `sip:${silent.endpoint}`, {}, 1_200);
        expect(r).to.include({ ok: false, message: 'timed out after 1200 ms' });
        expect(r.details).to.include({ retransmissions: 1 });
        // Sent at 0 and 500 ms; the next (1500 ms) is past the deadline.
        expect(silent.received()).to.equal(2);
        await poll(() => openUdpSockets() === before, { what: 'the probe to close its UDP socket', timeoutMs: 3_000 });
      } finally {
        await silent.close();
      }
    });

    it('answers a lost request on its retransmission, and ignores responses to other requests', async () => {
      const peer = await scriptedSipPeer((request, count) =>
        count === 1
          ? []
          : [
              sipResponse('200 OK', request, { callId: 'someone-else@host' }),
              sipResponse('200 OK', request, { via: 'SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bKother' }),
              sipResponse('100 Trying', request),
              sipResponse('503 Service Unavailable', request),
            ],
      );
      try {
        const r = await runProbe('SIP', peer.endpoint, {}, 3_000);
        expect(r).to.deep.include({ ok: false, message: 'SIP 503 Service Unavailable', observed: { status: 503 } });
        expect(r.details).to.include({ retransmissions: 1, server: 'scripted' });
        expect(peer.received()).to.have.length(2);
      } finally {
        await peer.close();
      }
    });

    it('sends a well-formed OPTIONS with a fresh transaction each check', async () => {
      const peer = await scriptedSipPeer((request) => [sipResponse('200 OK', request)]);
      try {
        const endpoint = `${peer.endpoint.replace('sip:', 'sip:alice@')};transport=udp`;
        expect((await runProbe('SIP', endpoint)).ok).to.equal(true);
        expect((await runProbe('SIP', endpoint)).ok).to.equal(true);
        const [first, second] = peer.received() as [string, string];
        const uri = endpoint.split(';')[0];
        expect(first).to.match(new RegExp(`^OPTIONS ${uri} SIP/2\\.0\\r\\n`));
        expect(first).to.match(/\r\nVia: SIP\/2\.0\/UDP 127\.0\.0\.1:\d+;rport;branch=z9hG4bK[0-9a-f]+\r\n/);
        expect(first).to.include('\r\nMax-Forwards: 70\r\n').and.include(`\r\nTo: <${uri}>\r\n`).and.include('\r\nCSeq: 1 OPTIONS\r\n');
        expect(first).to.match(/\r\nFrom: <sip:outpost@127\.0\.0\.1>;tag=[0-9a-f]+\r\n/);
        expect(first).to.match(/\r\nContact: <sip:outpost@127\.0\.0\.1:\d+;transport=udp>\r\n/);
        expect(first).to.include('\r\nAccept: application/sdp\r\n').and.include('\r\nUser-Agent: outpost\r\n');
        expect(first.endsWith('\r\nContent-Length: 0\r\n\r\n')).to.equal(true);
        const callId = (text: string) => /\r\nCall-ID: (\S+)\r\n/.exec(text)?.[1];
        expect(callId(first)).to.be.a('string').and.not.equal(callId(second));
      } finally {
        await peer.close();
      }
    });
  });

  describe('over TCP', () => {
    /** A TCP peer that answers the first request it reads with `answer(headers)`, then does `after`. */
    async function tcpSipPeer(answer: (h: SipRequestHeaders) => string, after: 'close' | 'stay'): Promise<{ endpoint: string; close(): Promise<void> }> {
      const sockets = new Set<net.Socket>();
      const server = net.createServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => undefined);
        socket.once('data', (chunk: Buffer) => {
          const reply = answer(requestHeaders(chunk.toString('utf8')));
          if (after === 'close') socket.end(reply);
          else socket.write(reply);
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return {
        endpoint: `sip:127.0.0.1:${(server.address() as AddressInfo).port};transport=tcp`,
        async close() {
          for (const s of sockets) s.destroy();
          await new Promise((r) => server.close(r));
        },
      };
    }

    it('frames responses by Content-Length and skips keep-alives, provisional and stray responses', async () => {
      const peer = await tcpSipPeer((h) => {
        const withBody = sipResponse('200 OK', h, { callId: 'stray@host' }).replace('Content-Length: 0\r\n\r\n', 'Content-Length: 13\r\n\r\nSIP/2.0 200 X');
        return `\r\n\r\n${sipResponse('180 Ringing', h)}${withBody}\r\n${sipResponse('486 Busy Here', h)}`;
      }, 'stay');
      try {
        const r = await runProbe('SIP', peer.endpoint);
        expect(r).to.deep.include({ ok: false, message: 'SIP 486 Busy Here', observed: { status: 486 } });
        expect(r.details.connect_ms).to.be.a('number');
      } finally {
        await peer.close();
      }
    });

    it('is RED when the server closes the connection before a final response', async () => {
      const peer = await tcpSipPeer((h) => sipResponse('100 Trying', h), 'close');
      try {
        const r = await runProbe('SIP', peer.endpoint);
        expect(r).to.include({ ok: false, message: 'the server closed the connection before a final response' });
      } finally {
        await peer.close();
      }
    });

    itFailsLikeAnyProtocol('SIP', {
      otherProtocol: 'HTTP/1.1 400 Bad Request\r\n\r\n',
      otherProtocolMessage: /^not a SIP response$/,
      endpointFor: (hostPort) => `sip:${hostPort};transport=tcp`,
    });
  });

  describe('options', () => {
    it('takes the common options and assertions on status', () => {
      expect(parseCheckOptions('SIP', { retries: 1, assertions: [{ source: 'status', comparison: 'equals', target: 200 }] }).ok).to.equal(true);
    });

    it('refuses options of other families and sources SIP does not offer', () => {
      const transport = parseCheckOptions('SIP', { transport: 'tcp' });
      expect(transport).to.deep.equal({ ok: false, issues: [{ path: '', message: 'transport is not an option of check_type SIP' }] });
      const body = parseCheckOptions('SIP', { assertions: [{ source: 'body', comparison: 'contains', target: 'x' }] });
      expect(body.ok).to.equal(false);
    });
  });
});
