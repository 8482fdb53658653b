// The agent's own gRPC client against real servers on 127.0.0.1: grpc-js (what the control
// plane runs), over TLS and mTLS, through an HTTP CONNECT proxy, and against peers that are
// not gRPC or that go silent.
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Server, ServerCredentials, status, type ServerDuplexStream } from '@grpc/grpc-js';
import { expect } from 'chai';
import { CONNECT_PATH } from '../../../agent/src/control/connection.js';
import { openGrpcStream, type GrpcStream, type GrpcStreamOptions } from '../../../agent/src/control/grpc-stream.js';
import type { GrpcStatus } from '../../../agent/src/grpc/wire.js';
import { AgentMessage, ControlMessage } from '../../../shared/src/gen/agent.js';
import { AgentServiceService } from '../../../shared/src/gen/agent_service.js';
import { refusedEndpoint } from '../../fixtures/peers/net-fixtures.js';
import { selfSignedCertificate } from '../../fixtures/peers/self-signed.js';
import { startConnectProxy } from '../../support/connect-proxy.js';
import { poll } from '../../support/poll.js';
import { startTcpProxy } from '../../support/tcp-proxy.js';

type ServerStream = ServerDuplexStream<AgentMessage, ControlMessage>;

const heartbeat = (sentAtMs: number): AgentMessage => ({ payload: { $case: 'heartbeat', value: { sentAtMs, spoolDepth: 0 } } });
const ack = (batchId: string): ControlMessage => ({ payload: { $case: 'ack', value: { batchId, accepted: 1 } } });

/** A grpc-js server whose Connect answers each heartbeat with an ack named after it, and ends when the client does. */
async function startServer(credentials = ServerCredentials.createInsecure(), onStream: (stream: ServerStream) => void = echo, host = '127.0.0.1') {
  const server = new Server();
  server.addService(AgentServiceService, { connect: onStream });
  const port = await new Promise<number>((resolve, reject) => server.bindAsync(`${host}:0`, credentials, (err, p) => (err ? reject(err) : resolve(p))));
  return { port, stop: () => server.forceShutdown() };
}

function echo(stream: ServerStream): void {
  stream.on('data', (m: AgentMessage) => {
    if (m.payload?.$case === 'heartbeat') stream.write(ack(`beat-${m.payload.value.sentAtMs}`));
  });
  stream.on('end', () => stream.end());
}

describe('grpc stream (the agent’s own gRPC client)', function () {
  this.timeout(20_000);
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function open(target: string, extra: Partial<GrpcStreamOptions<AgentMessage, ControlMessage>> = {}) {
    const messages: ControlMessage[] = [];
    const statuses: GrpcStatus[] = [];
    const stream: GrpcStream<AgentMessage> = openGrpcStream<AgentMessage, ControlMessage>(
      { target, path: CONNECT_PATH, userAgent: 'outpost-agent/test', encode: (m) => AgentMessage.encode(m).finish(), decode: (b) => ControlMessage.decode(b), ...extra },
      { onMessage: (m) => messages.push(m), onStatus: (s) => statuses.push(s) },
    );
    cleanups.push(() => stream.cancel());
    return { stream, messages, statuses, ended: () => poll(() => statuses.length > 0, { what: 'the status' }).then(() => statuses[0]!) };
  }

  it('calls the RPC the generated service names', () => {
    expect(CONNECT_PATH).to.equal(AgentServiceService.connect.path);
  });

  it('carries messages both ways and ends with OK when both sides end', async () => {
    const server = await startServer();
    cleanups.push(server.stop);
    const { stream, messages, ended } = open(`127.0.0.1:${server.port}`);
    for (let i = 1; i <= 3; i++) stream.write(heartbeat(i));
    await poll(() => messages.length === 3, { what: 'three acks' });
    expect(messages).to.deep.equal([ack('beat-1'), ack('beat-2'), ack('beat-3')]);
    stream.end();
    expect(await ended()).to.deep.equal({ code: status.OK, details: 'OK' });
  });

  it('dials an IPv6 address written in brackets', async () => {
    const server = await startServer(undefined, echo, '[::1]');
    cleanups.push(server.stop);
    const { stream, messages } = open(`[::1]:${server.port}`);
    stream.write(heartbeat(6));
    await poll(() => messages.length === 1, { what: 'the ack over IPv6' });
    expect(messages).to.deep.equal([ack('beat-6')]);
  });

  it('reads a message larger than an HTTP/2 frame, and many in a row', async () => {
    const big: ControlMessage = { payload: { $case: 'ack', value: { batchId: 'x'.repeat(300_000), accepted: 7 } } };
    const server = await startServer(undefined, (s) => {
      s.write(big);
      for (let i = 0; i < 200; i++) s.write(ack(`n-${i}`));
      s.end();
    });
    cleanups.push(server.stop);
    const { messages, ended } = open(`127.0.0.1:${server.port}`);
    expect((await ended()).code).to.equal(status.OK);
    expect(messages).to.have.length(201);
    expect(messages[0]).to.deep.equal(big);
    expect(messages[200]).to.deep.equal(ack('n-199'));
  });

  it('reports the status the server ends with, with its details', async () => {
    const server = await startServer(undefined, (s) => s.once('data', () => s.emit('error', { code: status.UNAUTHENTICATED, details: 'invalid agent token: ünïcode' })));
    cleanups.push(server.stop);
    const { stream, ended } = open(`127.0.0.1:${server.port}`);
    stream.write(heartbeat(1));
    expect(await ended()).to.deep.equal({ code: status.UNAUTHENTICATED, details: 'invalid agent token: ünïcode' });
  });

  it('calls a refused connection UNAVAILABLE, saying why', async () => {
    const { ended } = open(await refusedEndpoint());
    const s = await ended();
    expect(s.code).to.equal(status.UNAVAILABLE);
    expect(s.details).to.include('ECONNREFUSED');
  });

  it('maps an HTTP server that is not gRPC to the gRPC status of its HTTP status', async () => {
    const server = http2.createServer((_req, res) => res.writeHead(404).end('no such thing'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => server.close(r)));
    const { ended } = open(`127.0.0.1:${(server.address() as AddressInfo).port}`);
    expect(await ended()).to.deep.equal({ code: status.UNIMPLEMENTED, details: 'the server answered HTTP 404, not gRPC' });
  });

  it('reports CANCELLED once after cancel(), never from inside it', async () => {
    const server = await startServer();
    cleanups.push(server.stop);
    const { stream, messages, statuses, ended } = open(`127.0.0.1:${server.port}`);
    stream.write(heartbeat(1));
    await poll(() => messages.length === 1, { what: 'the ack' });
    stream.cancel();
    expect(statuses, 'not reported synchronously').to.deep.equal([]);
    expect(await ended()).to.deep.equal({ code: status.CANCELLED, details: 'cancelled by the agent' });
    stream.cancel();
    stream.write(heartbeat(2));
    await new Promise((r) => setTimeout(r, 50));
    expect(statuses).to.have.length(1);
  });

  it('drops a connection whose peer stops answering pings, as UNAVAILABLE', async () => {
    const server = await startServer();
    cleanups.push(server.stop);
    const freezer = await startTcpProxy('127.0.0.1', server.port);
    cleanups.push(freezer.close);
    const { stream, messages, ended } = open(`127.0.0.1:${freezer.port}`, { keepaliveTimeMs: 100, keepaliveTimeoutMs: 300 });
    stream.write(heartbeat(1));
    await poll(() => messages.length === 1, { what: 'the ack' });
    freezer.freeze();
    const s = await ended();
    expect(s.code).to.equal(status.UNAVAILABLE);
    expect(s.details).to.equal('no answer to a ping within 300 ms');
  });

  describe('TLS', () => {
    const serverCert = selfSignedCertificate();

    it('talks to a server whose certificate it trusts, and refuses one it does not', async () => {
      const server = await startServer(ServerCredentials.createSsl(null, [{ private_key: Buffer.from(serverCert.key), cert_chain: Buffer.from(serverCert.cert) }]));
      cleanups.push(server.stop);
      const trusted = open(`127.0.0.1:${server.port}`, { tls: { ca: serverCert.cert } });
      trusted.stream.write(heartbeat(1));
      await poll(() => trusted.messages.length === 1, { what: 'the ack over TLS' });

      const untrusted = open(`127.0.0.1:${server.port}`, { tls: {} });
      untrusted.stream.write(heartbeat(1));
      const s = await untrusted.ended();
      expect(s.code).to.equal(status.UNAVAILABLE);
      expect(s.details).to.match(/self.signed certificate/i);
      expect(untrusted.messages).to.deep.equal([]);
    });

    it('presents a client certificate to a server that asks for one (mTLS)', async () => {
      const client = selfSignedCertificate();
      const server = await startServer(ServerCredentials.createSsl(Buffer.from(client.cert), [{ private_key: Buffer.from(serverCert.key), cert_chain: Buffer.from(serverCert.cert) }], true));
      cleanups.push(server.stop);
      const withCert = open(`127.0.0.1:${server.port}`, { tls: { ca: serverCert.cert, cert: client.cert, key: client.key } });
      withCert.stream.write(heartbeat(1));
      await poll(() => withCert.messages.length === 1, { what: 'the ack over mTLS' });

      const withoutCert = open(`127.0.0.1:${server.port}`, { tls: { ca: serverCert.cert } });
      withoutCert.stream.write(heartbeat(1));
      expect((await withoutCert.ended()).code).to.equal(status.UNAVAILABLE);
      expect(withoutCert.messages).to.deep.equal([]);
    });
  });

  describe('through an HTTP proxy', () => {
    it('tunnels with CONNECT, sending the proxy credentials, TLS inside the tunnel', async () => {
      const cert = selfSignedCertificate();
      const server = await startServer(ServerCredentials.createSsl(null, [{ private_key: Buffer.from(cert.key), cert_chain: Buffer.from(cert.cert) }]));
      cleanups.push(server.stop);
      const proxy = await startConnectProxy();
      cleanups.push(proxy.close);
      const target = `127.0.0.1:${server.port}`;
      const { stream, messages } = open(target, { tls: { ca: cert.cert }, proxy: { url: `http://agent:s%40cret@127.0.0.1:${proxy.port}` } });
      stream.write(heartbeat(1));
      await poll(() => messages.length === 1, { what: 'the ack through the tunnel' });
      expect(proxy.requests).to.deep.equal([{ target, authorization: `Basic ${Buffer.from('agent:s@cret').toString('base64')}` }]);
    });

    it('goes direct to a host NO_PROXY names', async () => {
      const server = await startServer();
      cleanups.push(server.stop);
      const proxy = await startConnectProxy();
      cleanups.push(proxy.close);
      const { stream, messages } = open(`127.0.0.1:${server.port}`, { proxy: { url: `http://127.0.0.1:${proxy.port}`, noProxy: 'example.com, 127.0.0.1' } });
      stream.write(heartbeat(1));
      await poll(() => messages.length === 1, { what: 'the ack' });
      expect(proxy.requests).to.deep.equal([]);
    });

    it('reports a proxy that refuses the tunnel as UNAVAILABLE, naming the proxy', async () => {
      const proxy = await startConnectProxy(403);
      cleanups.push(proxy.close);
      const { ended } = open('127.0.0.1:1', { proxy: { url: `http://127.0.0.1:${proxy.port}` } });
      expect(await ended()).to.deep.equal({ code: status.UNAVAILABLE, details: `through the proxy 127.0.0.1:${proxy.port}: the proxy answered 403 Forbidden` });
    });
  });
});
