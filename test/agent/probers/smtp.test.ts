import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { SMTPServer } from 'smtp-server';
import { tcpListener } from '../../fixtures/peers/net-fixtures.js';
import { poll } from '../../support/poll.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

describe('smtp prober', () => {
  let server: SMTPServer;
  let endpoint: string;
  const ehloNames: string[] = [];
  before(async () => {
    server = new SMTPServer({
      name: 'mx.outpost.test',
      banner: 'Outpost test MTA',
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onClose: (session) => ehloNames.push(session.hostNameAppearsAs),
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    endpoint = `127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('is GREEN on a 220 greeting, after EHLO and QUIT, with the banner time', async () => {
    const r = await runProbe('SMTP', endpoint);
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^SMTP 220 mx\.outpost\.test/);
    expect(r.details).to.include({ reply_code: 220, ehlo_code: 250 });
    expect(r.details.banner_ms).to.be.a('number');
    expect(r.details.extensions).to.be.an('array');
  });

  it('says EHLO with options.ehlo_name', async () => {
    ehloNames.length = 0;
    expect((await runProbe('SMTP', endpoint, { ehlo_name: 'probe.outpost.test' })).ok).to.equal(true);
    await poll(() => ehloNames.includes('probe.outpost.test'), { what: 'the server to see the EHLO name' });
  });

  describe('banner (assertions)', () => {
    it('observes the greeting line, and an assertion on it decides', async () => {
      const r = await runProbe('SMTP', endpoint, { assertions: [{ source: 'banner', comparison: 'contains', target: 'Outpost test MTA' }] });
      expect(r.ok, r.message).to.equal(true);
      expect(r.observed?.banner).to.match(/^220 mx\.outpost\.test .*Outpost test MTA$/);
      expect(r.details.assertions).to.deep.equal([{ source: 'banner', comparison: 'contains', target: 'Outpost test MTA', actual: r.observed?.banner, passed: true }]);
      const wrong = await runProbe('SMTP', endpoint, { assertions: [{ source: 'banner', comparison: 'contains', target: 'Postfix' }] });
      expect(wrong.ok).to.equal(false);
      expect(wrong.message).to.match(/^banner contains "Postfix": got "220 mx\.outpost\.test/);
    });

    it('observes a greeting that is not 220, and joins the lines of one that has several', async () => {
      const busy = await tcpListener('554-no service here\r\n554 go away\r\n');
      try {
        const r = await runProbe('SMTP', busy.endpoint);
        expect(r).to.deep.include({ ok: false, observed: { banner: '554-no service here\n554 go away' } });
      } finally {
        await busy.close();
      }
    });
  });

  itFailsLikeAnyProtocol('SMTP', { otherProtocol: 'HTTP/1.1 400 Bad Request\r\n\r\n', otherProtocolMessage: /^not an SMTP reply: "HTTP\/1\.1 400 Bad Request"$/ });

  it('is RED on a greeting that is not 220', async () => {
    const busy = await tcpListener('554 no service here\r\n');
    try {
      const r = await runProbe('SMTP', busy.endpoint);
      expect(r).to.include({ ok: false, message: 'SMTP greeting 554 no service here' });
      expect(r.details.reply_code).to.equal(554);
    } finally {
      await busy.close();
    }
  });
});
