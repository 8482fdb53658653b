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

  describe('command', () => {
    it('runs the command against the database and observes its reply, which assertions read by JSONPath', async () => {
      const r = await runProbe('MONGODB', peer.endpoint, {
        database: 'inventory',
        command: { dbStats: 1 },
        assertions: [{ source: 'result', property: '$.db', comparison: 'equals', target: 'inventory' }],
      });
      expect(r.ok, r.message).to.equal(true);
      expect(r.message).to.match(/^MongoDB dbStats answered in \d+ ms$/);
      expect(r.observed).to.deep.equal({ result: { db: 'inventory', collections: 0, objects: 0, ok: 1 } });
      expect(r.details.assertions).to.deep.equal([{ source: 'result', property: '$.db', comparison: 'equals', target: 'inventory', actual: 'inventory', passed: true }]);
    });

    it('runs it against admin by default, logged in when credentials are given', async () => {
      const r = await runProbe('MONGODB', peer.endpoint, { username: 'monitor', password: 's3cret', command: { buildInfo: 1 } });
      expect(r.ok, r.message).to.equal(true);
      expect(r.observed?.result).to.deep.equal({ version: '7.0.0-stand-in', ok: 1 });
      const admin = await runProbe('MONGODB', peer.endpoint, { command: { dbStats: 1 } });
      expect(admin.observed?.result).to.deep.include({ db: 'admin' });
    });

    it('gives the reply as relaxed Extended JSON: BSON types JSON lacks as {"$date": ...}', async () => {
      const r = await runProbe('MONGODB', peer.endpoint, { command: { hello: 1 } });
      const reply = r.observed?.result as { localTime: { $date: string }; maxWireVersion: number };
      expect(reply.maxWireVersion).to.equal(21);
      expect(new Date(reply.localTime.$date).getTime()).to.be.closeTo(Date.now(), 60_000);
    });

    it('is RED when an assertion on the reply fails', async () => {
      const r = await runProbe('MONGODB', peer.endpoint, { command: { buildInfo: 1 }, assertions: [{ source: 'result', property: '$.version', comparison: 'matches', target: '^8\\.' }] });
      expect(r).to.include({ ok: false, message: 'result $.version matches "^8\\\\.": got "7.0.0-stand-in"' });
    });

    it('is RED with the server\'s message when the command fails, and observes the refusal', async () => {
      const r = await runProbe('MONGODB', peer.endpoint, { command: { noSuchCommand: 1 } });
      expect(r).to.include({ ok: false, message: "command failed: no such command: 'nosuchcommand'" });
      expect(r.observed?.result).to.deep.include({ ok: 0, codeName: 'CommandNotFound' });
    });
  });

  itFailsLikeAnyProtocol('MONGO', { otherProtocol: 'HTTP/1.1 400 Bad Request\r\n\r\n', otherProtocolMessage: /^timed out after 1500 ms$/ });
});
