import { expect } from 'chai';
import { FtpSrv } from 'ftp-srv';
import { freePort, tcpListener } from '../../fixtures/peers/net-fixtures.js';
import { poll } from '../../support/poll.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

describe('ftp prober', () => {
  let server: FtpSrv;
  let endpoint: string;
  before(async () => {
    const port = await freePort();
    const quiet = { info: () => undefined, debug: () => undefined, trace: () => undefined, warn: () => undefined, error: () => undefined, child: () => quiet };
    server = new FtpSrv({ url: `ftp://127.0.0.1:${port}`, greeting: ['Outpost test FTP', 'second line'], log: quiet as never });
    await server.listen();
    endpoint = `127.0.0.1:${port}`;
  });
  after(() => server.close());

  it('is GREEN on a 220 greeting, multi-line included', async () => {
    const r = await runProbe('FTP', endpoint);
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^FTP 220/);
    expect(r.details).to.include({ reply_code: 220 });
  });

  it('reads a multi-line greeting to its last line, then sends QUIT', async () => {
    const peer = await tcpListener('220-Welcome\r\n220-to the\r\n220 test server\r\n');
    try {
      expect(await runProbe('FTP', peer.endpoint)).to.include({ ok: true, message: 'FTP 220 test server' });
      await poll(() => peer.received() === 'QUIT\r\n', { what: 'the QUIT command' });
    } finally {
      await peer.close();
    }
  });

  it('is RED on a greeting that is not 220', async () => {
    const busy = await tcpListener('421 too many connections\r\n');
    try {
      expect((await runProbe('FTP', busy.endpoint)).ok).to.equal(false);
    } finally {
      await busy.close();
    }
  });

  describe('banner (assertions)', () => {
    it('observes the greeting, its lines joined, and an assertion on it decides', async () => {
      const r = await runProbe('FTP', endpoint, { assertions: [{ source: 'banner', comparison: 'contains', target: 'Outpost test FTP' }] });
      expect(r.ok, r.message).to.equal(true);
      expect(r.observed?.banner).to.match(/^220-Outpost test FTP\n220-second line\n220 /);
      expect(r.details.assertions).to.deep.equal([{ source: 'banner', comparison: 'contains', target: 'Outpost test FTP', actual: r.observed?.banner, passed: true }]);
      const wrong = await runProbe('FTP', endpoint, { assertions: [{ source: 'banner', comparison: 'matches', target: 'vsFTPd' }] });
      expect(wrong.ok).to.equal(false);
      expect(wrong.message).to.match(/^banner matches "vsFTPd": got "220-Outpost test FTP\\n220-second line\\n220 /);
    });

    it('observes a greeting that is not 220', async () => {
      const busy = await tcpListener('421 too many connections\r\n');
      try {
        expect(await runProbe('FTP', busy.endpoint)).to.deep.include({ ok: false, observed: { banner: '421 too many connections' } });
      } finally {
        await busy.close();
      }
    });
  });

  itFailsLikeAnyProtocol('FTP', { otherProtocol: 'HTTP/1.1 400 Bad Request\r\n\r\n', otherProtocolMessage: /^not an FTP reply: "HTTP\/1\.1 400 Bad Request"$/ });
});
