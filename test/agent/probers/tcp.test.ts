import net, { type AddressInfo } from 'node:net';
import { expect } from 'chai';
import { refusedEndpoint, tcpListener } from '../../fixtures/peers/net-fixtures.js';
import { startStalledListener } from '../../fixtures/peers/stalled-listener.js';
import { poll } from '../../support/poll.js';
import { runProbe } from './probe-helpers.js';

describe('tcp prober', () => {
  it('is GREEN when the port accepts, with the connect time, and closes the socket', async () => {
    const listener = await tcpListener();
    try {
      const r = await runProbe('TELNET', listener.endpoint);
      expect(r.ok).to.equal(true);
      expect(r.message).to.match(/^connected in \d+ ms$/);
      expect(r.details.connect_ms).to.be.a('number');
      expect(r.details).to.not.have.property('dns_ms');
      await poll(() => listener.open() === 0, { what: 'the socket to close' });
    } finally {
      await listener.close();
    }
  });

  it('is RED with "connection refused" when nothing listens', async () => {
    const r = await runProbe('TCP', await refusedEndpoint());
    expect(r).to.include({ ok: false, message: 'connection refused' });
  });

  it('resolves a host name and reports the lookup time', async () => {
    const listener = await tcpListener();
    try {
      const r = await runProbe('TCP', `localhost:${listener.port}`);
      expect(r.ok, r.message).to.equal(true);
      expect(r.details.dns_ms).to.be.a('number');
    } finally {
      await listener.close();
    }
  });

  it('ends at its timeout when the connect never completes, and abandons the connect', async () => {
    const stalled = await startStalledListener();
    try {
      const started = Date.now();
      const r = await runProbe('TCP', stalled.endpoint, {}, 600);
      expect(r).to.include({ ok: false, message: 'timed out after 600 ms' });
      expect(Date.now() - started).to.be.within(550, 2_000);
      expect(r.details, 'no connect time for a connect that did not happen').to.not.have.property('connect_ms');
      await poll(() => stalled.pendingConnects() === 0, { what: 'the pending connect to be dropped', timeoutMs: 3_000 });
    } finally {
      await stalled.stop();
    }
  });
});

/** A loopback server that runs `onSocket` for each connection, keeping what clients sent (latin1). */
async function startPeer(onSocket: (socket: net.Socket) => void): Promise<{ endpoint: string; received(): string; open(): number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let received = '';
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    onSocket(socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    endpoint: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => received,
    open: () => sockets.size,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

/** Answers "PONG\r\n" to every "PING\r\n" line, like a Redis in inline mode. */
const pingPong = (socket: net.Socket) => {
  let pending = '';
  socket.on('data', (chunk: Buffer) => {
    pending += chunk.toString('latin1');
    for (let end = pending.indexOf('\r\n'); end >= 0; end = pending.indexOf('\r\n')) {
      if (pending.slice(0, end) === 'PING') socket.write('PONG\r\n');
      pending = pending.slice(end + 2);
    }
  });
};

const BODY_CONTAINS_PONG = { source: 'body', comparison: 'contains', target: 'PONG' };

describe('tcp prober with send or assertions on the body', () => {
  it('writes send with its escapes decoded and reads the reply into observed.body', async () => {
    const peer = await startPeer(pingPong);
    try {
      const started = performance.now();
      const r = await runProbe('TCP', peer.endpoint, { send: 'PING\\r\\n', assertions: [BODY_CONTAINS_PONG] });
      const wallMs = performance.now() - started;
      expect(r.ok, r.message).to.equal(true);
      expect(r.observed).to.deep.equal({ body: 'PONG\r\n' });
      expect(r.message).to.match(/^connected in \d+ ms, read 6 bytes in \d+ ms$/);
      expect(peer.received()).to.equal('PING\r\n');
      expect(r.details.connect_ms).to.be.a('number');
      expect(r.details.reply_ms).to.equal(r.responseTimeMs);
      expect(r.details.assertions).to.deep.equal([{ ...BODY_CONTAINS_PONG, actual: 'PONG\r\n', passed: true }]);
      expect(wallMs - r.responseTimeMs, 'the quiet period that ends the read is not response time').to.be.at.least(190);
      await poll(() => peer.open() === 0, { what: 'the probe to close its socket' });
    } finally {
      await peer.close();
    }
  });

  it('is RED when the reply fails the assertion, naming what came back', async () => {
    const peer = await startPeer((socket) => socket.on('data', () => socket.write('-ERR unknown command\r\n')));
    try {
      const r = await runProbe('TCP', peer.endpoint, { send: 'PING\\r\\n', assertions: [BODY_CONTAINS_PONG] });
      expect(r).to.include({ ok: false, message: 'body contains "PONG": got "-ERR unknown command\\r\\n"' });
    } finally {
      await peer.close();
    }
  });

  it('reads the greeting of a server that speaks first, however late it comes, when the body is asserted', async () => {
    const peer = await startPeer((socket) => setTimeout(() => socket.write('220 mail.outpost.test ESMTP\r\n'), 400));
    try {
      const r = await runProbe('TCP', peer.endpoint, { assertions: [{ source: 'body', comparison: 'contains', target: '220' }] });
      expect(r.ok, r.message).to.equal(true);
      expect(r.observed).to.deep.equal({ body: '220 mail.outpost.test ESMTP\r\n' });
      expect(r.responseTimeMs).to.be.at.least(400);
      expect(peer.received(), 'nothing is sent without send').to.equal('');
    } finally {
      await peer.close();
    }
  });

  it('ends at the deadline, with nothing observed, when the body is asserted and nothing comes', async () => {
    const peer = await startPeer(() => undefined);
    try {
      const r = await runProbe('TCP', peer.endpoint, { send: 'PING\\r\\n', assertions: [BODY_CONTAINS_PONG] }, 600);
      expect(r).to.include({ ok: false, message: 'timed out after 600 ms' });
      expect(r).to.not.have.property('observed');
      await poll(() => peer.open() === 0, { what: 'the probe to close its socket' });
    } finally {
      await peer.close();
    }
  });

  it('waits only a short while for a reply nobody asserts on, and passes with an empty body', async () => {
    const peer = await startPeer(() => undefined);
    try {
      const started = Date.now();
      const r = await runProbe('TCP', peer.endpoint, { send: 'hello\\n' }, 5_000);
      expect(r.ok, r.message).to.equal(true);
      expect(r.message).to.match(/^connected in \d+ ms, nothing read$/);
      expect(r.observed).to.deep.equal({ body: '' });
      expect(Date.now() - started).to.be.below(2_000);
      await poll(() => peer.received() === 'hello\n', { what: 'the server to get the text' });
    } finally {
      await peer.close();
    }
  });

  it('reads at most 4 KiB, or up to the server\'s close, and keeps bytes that are not UTF-8 as latin1', async () => {
    const big = await startPeer((socket) => socket.write('x'.repeat(10_000)));
    const closing = await startPeer((socket) => socket.end(Buffer.from([0x48, 0x49, 0xff, 0x0a])));
    try {
      const r = await runProbe('TCP', big.endpoint, { assertions: [{ source: 'body', comparison: 'not_empty' }] });
      expect(r.observed?.body).to.have.lengthOf(4096);
      const c = await runProbe('TCP', closing.endpoint, { send: '\\x01\\xfe', assertions: [{ source: 'body', comparison: 'not_empty' }] });
      expect(c.ok, c.message).to.equal(true);
      expect(c.observed).to.deep.equal({ body: 'HI\xff\n' });
      expect(closing.received()).to.equal('\x01\xfe');
    } finally {
      await big.close();
      await closing.close();
    }
  });

  it('is RED when send holds an escape the agent cannot decode', async () => {
    const r = await runProbe('TCP', '127.0.0.1:9', { send: 'PING\\q' });
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/^bad send option: "\\q" at character 5 is not an escape/);
  });

  it('observes nothing without send or assertions on the body: it only connects', async () => {
    const peer = await tcpListener('banner\r\n');
    try {
      const r = await runProbe('TCP', peer.endpoint, { assertions: [{ source: 'response_time_ms', comparison: 'less_than', target: 5_000 }] });
      expect(r.ok, r.message).to.equal(true);
      expect(r.message).to.match(/^connected in \d+ ms$/);
      expect(r).to.not.have.property('observed');
    } finally {
      await peer.close();
    }
  });
});
