// deploy/haproxy/haproxy.cfg run for real by Debian's HAProxy, in front of two stand-in
// replicas on loopback (HTTP with /api/v1/ready and a WebSocket feed, and an h2c port as
// gRPC is): balancing, upgrades, HTTP/2 pass-through, and a replica that stops being ready.
import { once } from 'node:events';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { WebSocket, WebSocketServer } from 'ws';
import { peerBinary } from '../fixtures/peers/require-peer.js';
import { HAPROXY_BINARY, startHaproxy, type HaproxyProcess } from '../support/haproxy-process.js';
import { poll } from '../support/poll.js';

interface FakeReplica {
  name: string;
  ready: boolean;
  http: http.Server;
  grpc: http2.Http2Server;
  close(): Promise<void>;
}

const portOf = (server: http.Server | http2.Http2Server) => (server.address() as AddressInfo).port;

/** Answers every request with its name; /api/v1/ready with 200 or 503 as `ready` says. */
async function startFakeReplica(name: string): Promise<FakeReplica> {
  const replica = { name, ready: true } as FakeReplica;
  replica.http = http.createServer((req, res) => {
    if (req.url === '/api/v1/ready') res.writeHead(replica.ready ? 200 : 503).end();
    else res.end(name);
  });
  const wss = new WebSocketServer({ server: replica.http });
  wss.on('connection', (socket) => socket.send(name));
  replica.grpc = http2.createServer((_req, res) => res.end(name));
  replica.http.listen(0, '127.0.0.1');
  replica.grpc.listen(0, '127.0.0.1');
  await Promise.all([once(replica.http, 'listening'), once(replica.grpc, 'listening')]);
  replica.close = async () => {
    for (const client of wss.clients) client.terminate();
    replica.http.closeAllConnections();
    await Promise.all([new Promise((r) => replica.http.close(r)), new Promise((r) => replica.grpc.close(r)), new Promise((r) => wss.close(r))]);
  };
  return replica;
}

async function freePort(): Promise<number> {
  const server = http.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = portOf(server);
  await new Promise((r) => server.close(r));
  return port;
}

async function h2Get(session: http2.ClientHttp2Session): Promise<string> {
  const stream = session.request({ ':path': '/' });
  let body = '';
  stream.setEncoding('utf8').on('data', (d: string) => (body += d));
  await once(stream, 'end');
  return body;
}

describe('deploy/haproxy/haproxy.cfg under HAProxy', () => {
  let replicas: FakeReplica[] = [];
  let haproxy: HaproxyProcess | undefined;
  const sessions: http2.ClientHttp2Session[] = [];
  const sockets: WebSocket[] = [];
  const httpGet = async () => (await fetch(`http://127.0.0.1:${haproxy!.httpPort}/api/v1/services`)).text();

  beforeEach(async function () {
    peerBinary(HAPROXY_BINARY, 'haproxy', this);
    replicas = await Promise.all([startFakeReplica('a'), startFakeReplica('b')]);
    haproxy = await startHaproxy(replicas.map((r) => ({ http: portOf(r.http), grpc: portOf(r.grpc) })), await freePort(), await freePort());
  });

  afterEach(async () => {
    for (const s of sockets.splice(0)) s.terminate();
    for (const s of sessions.splice(0)) s.destroy();
    await haproxy?.stop();
    haproxy = undefined;
    await Promise.all(replicas.map((r) => r.close()));
  });

  const openWebSocket = async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${haproxy!.httpPort}/api/v1/ws`);
    sockets.push(socket);
    const [greeting] = (await once(socket, 'message')) as [Buffer];
    return { socket, replica: greeting.toString() };
  };
  const openH2 = () => {
    const session = http2.connect(`http://127.0.0.1:${haproxy!.grpcPort}`);
    sessions.push(session);
    return session;
  };

  it('spreads HTTP requests over the replicas', async () => {
    const answers = new Set<string>();
    for (let i = 0; i < 10; i++) answers.add(await httpGet());
    expect([...answers].sort()).to.deep.equal(['a', 'b']);
  });

  it('passes WebSocket upgrades and HTTP/2 without TLS (gRPC) through to a replica', async () => {
    expect(['a', 'b']).to.include((await openWebSocket()).replica);
    expect(['a', 'b']).to.include(await h2Get(openH2()));
  });

  it('takes a replica that stops being ready out of both sides and cuts its streams', async () => {
    const session = openH2();
    const downName = await h2Get(session);
    const down = replicas.find((r) => r.name === downName)!;
    const up = replicas.find((r) => r !== down)!;
    // Round robin puts one of two new WebSockets on each replica.
    const onDown = [await openWebSocket(), await openWebSocket()].find((s) => s.replica === down.name);
    expect(onDown, 'a WebSocket on the replica going down').to.not.equal(undefined);
    let cut = 0;
    session.once('close', () => cut++);
    onDown!.socket.once('close', () => cut++);
    down.ready = false;
    await poll(async () => {
      const answers = await Promise.all(Array.from({ length: 6 }, () => httpGet()));
      return answers.every((a) => a === up.name);
    }, { what: `HTTP served by ${up.name} only`, timeoutMs: 15_000, intervalMs: 250 });
    await poll(() => cut === 2, { what: `the HTTP/2 session and the WebSocket on ${down.name} cut`, timeoutMs: 5_000 });
    expect(await h2Get(openH2())).to.equal(up.name);
    expect((await openWebSocket()).replica).to.equal(up.name);
  });
});
