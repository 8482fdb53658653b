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
