import { expect } from 'chai';
import { startMongoStandIn } from '../../fixtures/peers/mongo-stand-in.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

// MongoDB has no Debian package: these run against the wire-protocol stand-in in the fixtures.
describe('mongodb prober', () => {
  let peer: Awaited<ReturnType<typeof startMongoStandIn>>;
  before(async () => {
    peer = await startMongoStandIn();
  });
  after(() => peer.stop());

  it('is GREEN when hello is answered over a direct connection', async () => {
    const r = await runProbe('MONGODB', peer.endpoint);
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^MongoDB hello answered/);
    expect(r.details).to.include({ max_wire_version: 21 });
  });

  itFailsLikeAnyProtocol('MONGO', 'HTTP/1.1 400 Bad Request\r\n\r\n');
});
