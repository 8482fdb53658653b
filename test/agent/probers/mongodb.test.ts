import { expect } from 'chai';
import { startMongoStandIn } from '../../fixtures/peers/mongo-stand-in.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

// MongoDB has no Debian package: these run against the wire-protocol stand-in in the fixtures.
describe('mongodb prober', () => {
  let peer: Awaited<ReturnType<typeof startMongoStandIn>>;
  before(async () => {
    peer = await startMongoStandIn({ monitor: 's3cret' });
  });
  after(() => peer.stop());

  it('is GREEN when hello is answered over a direct connection', async () => {
    const r = await runProbe('MONGODB', peer.endpoint);
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^MongoDB hello answered/);
    expect(r.details).to.include({ max_wire_version: 21 });
  });

  it('logs in with SCRAM-SHA-256 and pings when credentials are given', async () => {
    const r = await runProbe('MONGODB', peer.endpoint, { username: 'monitor', password: 's3cret', database: 'admin' });
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^MongoDB login ok, ping in \d+ ms$/);
    expect(r.details.ping_ms).to.be.a('number');
  });

  it('is RED when the credentials are refused', async () => {
    const r = await runProbe('MONGODB', peer.endpoint, { username: 'monitor', password: 'wrong' });
    expect(r).to.include({ ok: false, message: 'MongoDB: Authentication failed.' });
  });

  itFailsLikeAnyProtocol('MONGO', { otherProtocol: 'HTTP/1.1 400 Bad Request\r\n\r\n', otherProtocolMessage: /^timed out after 1500 ms$/ });
});
