// The HTTP server's own limits: slow requests are cut at deliberate timeouts, one client
// cannot hold every connection, and an oversized body is answered 413 to a client still
// writing it instead of resetting the connection under it.
import net from 'node:net';
import { expect } from 'chai';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';

/** A raw connection that records what the server sent and when it closed. */
class RawClient {
  readonly socket: net.Socket;
  received = '';
  readonly closed: Promise<number>;
  constructor(port: number) {
    const opened = Date.now();
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.on('data', (d) => (this.received += d.toString()));
    this.socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve(Date.now() - opened)));
  }
  connected(): Promise<void> {
    return new Promise((resolve) => (this.socket.connecting ? this.socket.once('connect', () => resolve()) : resolve()));
  }
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describe('HTTP transport limits', () => {
  let cp: TestControlPlane;
  const clients: RawClient[] = [];
  const raw = async () => {
    const c = new RawClient(cp.running.httpPort);
    clients.push(c);
    await c.connected();
    return c;
  };

  before(async () => {
    cp = await startTestControlPlane({ env: { HTTP_HEADERS_TIMEOUT_SECONDS: '2', HTTP_REQUEST_TIMEOUT_SECONDS: '3', HTTP_MAX_CONNECTIONS_PER_CLIENT: '6' } });
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.socket.destroy();
  });
  after(() => cp?.stop());

  it('answers 408 and closes a request whose body trickles in a byte at a time', async () => {
    const c = await raw();
    c.socket.write('POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    const drip = setInterval(() => c.socket.writable && c.socket.write(' '), 500);
    try {
      const after = await within(c.closed, 8_000, 'closing the trickling request');
      expect(after).to.be.within(2_500, 8_000);
      expect(c.received).to.match(/^HTTP\/1\.1 408/);
    } finally {
      clearInterval(drip);
    }
  });

  it('closes a connection whose headers never finish', async () => {
    const c = await raw();
    c.socket.write('GET /api/v1/health HTTP/1.1\r\nHost: x\r\n');
    const drip = setInterval(() => c.socket.writable && c.socket.write('X-Slow: 1\r\n'), 500);
    try {
      await within(c.closed, 8_000, 'closing the slow headers');
    } finally {
      clearInterval(drip);
    }
  });

  it("answers in JSON what Node's HTTP parser refuses: a raw byte in the target, a bad Content-Length, headers over 16 KiB", async () => {
    for (const request of [
      'GET /api/v1/services?tag=a\x00b HTTP/1.1\r\nHost: x\r\n\r\n',
      'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      `GET /api/v1/health?q=${'a'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ]) {
      const c = await raw();
      c.socket.write(request);
      await within(c.closed, 5_000, 'the answer and close');
      const [head, body] = c.received.split('\r\n\r\n');
      expect(head, request.slice(0, 40)).to.match(/^HTTP\/1\.1 4(00|31) /).and.match(/content-type: application\/json/i);
      expect(JSON.parse(body!).error).to.be.a('string');
    }
  });

  it('refuses connections past the bound for one client address, and takes them again once some close', async () => {
    const held = await Promise.all(Array.from({ length: 6 }, () => raw()));
    const extra = await raw();
    await within(extra.closed, 3_000, 'refusing the 7th connection');
    expect(extra.received).to.equal('');
    held[0]!.socket.destroy();
    await held[0]!.closed;
    const health = await within(
      (async () => {
        for (;;) {
          const r = await fetch(`${cp.baseUrl}/api/v1/health`).catch(() => undefined);
          if (r?.status === 200) return r;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })(),
      3_000,
      'a new connection being served',
    );
    expect(await health.text()).to.equal('OK');
  });

  it('answers 413 to a client still sending an oversized body, whether its length is declared or chunked', async () => {
    const size = 20 * 1024 * 1024;
    const declared = await fetch(`${cp.baseUrl}/api/v1/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(size) });
    expect(declared.status).to.equal(413);
    expect(((await declared.json()) as { error: string }).error).to.match(/larger than 1 MiB/);
    let remaining = 20;
    const chunkSize = size / remaining;
    const chunked = await fetch(`${cp.baseUrl}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        pull(controller) {
          controller.enqueue(new Uint8Array(chunkSize).fill(32));
          if (--remaining === 0) controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).to.equal(413);
  });
});
