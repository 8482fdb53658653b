// A loopback HTTP proxy that tunnels CONNECT requests (or refuses them with a status), and
// records each tunnel asked for, for the agent's way out of a network through a proxy.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

export interface ConnectProxy {
  port: number;
  /** Each CONNECT tunnelled: its target (HOST:PORT) and Proxy-Authorization header. */
  requests: { target: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

export async function startConnectProxy(refuseWith?: number): Promise<ConnectProxy> {
  const requests: ConnectProxy['requests'] = [];
  const sockets = new Set<net.Socket>();
  const proxy = http.createServer((_req, res) => res.writeHead(405).end());
  proxy.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    sockets.add(client);
    client.on('error', () => undefined);
    if (refuseWith) return client.end(`HTTP/1.1 ${refuseWith} ${http.STATUS_CODES[refuseWith]}\r\n\r\n`);
    requests.push({ target: req.url ?? '', authorization: req.headers['proxy-authorization'] });
    sockets.add(tunnel(req.url ?? '', client, head));
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return {
    port: (proxy.address() as AddressInfo).port,
    requests,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => proxy.close(r));
    },
  };
}

export interface HttpProxy {
  port: number;
  /** http://[user:password@]127.0.0.1:PORT */
  url(credentials?: string): string;
  /** The target (HOST:PORT) of each CONNECT tunnelled. */
  tunnels: string[];
  /** Each request forwarded: its absolute URI and headers as the proxy got them. */
  forwarded: { uri: string; headers: http.IncomingHttpHeaders }[];
  /** CONNECTs and requests answered 407 for missing or wrong credentials. */
  refused(): number;
  close(): Promise<void>;
}

/**
 * A loopback HTTP proxy as checks meet them: it forwards requests in absolute form and tunnels
 * CONNECT, and asks for Basic `credentials` ("user:password") when it is given some.
 */
export async function startHttpProxy(credentials?: string): Promise<HttpProxy> {
  const tunnels: string[] = [];
  const forwarded: HttpProxy['forwarded'] = [];
  const sockets = new Set<net.Socket>();
  let refused = 0;
  const allowed = (req: http.IncomingMessage) => !credentials || req.headers['proxy-authorization'] === `Basic ${Buffer.from(credentials).toString('base64')}`;
  const challenge = { 'proxy-authenticate': 'Basic realm="outpost-test"' };
  const proxy = http.createServer((req, res) => {
    if (!allowed(req)) {
      refused++;
      return res.writeHead(407, challenge).end();
    }
    const uri = req.url ?? '';
    forwarded.push({ uri, headers: req.headers });
    const { 'proxy-authorization': _credentials, 'proxy-connection': _connection, ...headers } = req.headers;
    const upstream = http.request(uri, { method: req.method, headers, agent: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  proxy.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  proxy.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    client.on('error', () => undefined);
    if (!allowed(req)) {
      refused++;
      return client.end(`HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: ${challenge['proxy-authenticate']}\r\n\r\n`);
    }
    tunnels.push(req.url ?? '');
    const upstream = tunnel(req.url ?? '', client, head);
    sockets.add(upstream);
    client.once('close', () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const { port } = proxy.address() as AddressInfo;
  return {
    port,
    url: (userPassword) => `http://${userPassword ? `${userPassword}@` : ''}127.0.0.1:${port}`,
    tunnels,
    forwarded,
    refused: () => refused,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => proxy.close(r));
    },
  };
}

/** Joins a CONNECT's client to its target (HOST:PORT) once the target accepts; the upstream socket, for closing. */
function tunnel(target: string, client: net.Socket, head: Buffer): net.Socket {
  const [host, port] = target.split(':');
  const upstream = net.connect(Number(port), host, () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    upstream.write(head);
    upstream.pipe(client).pipe(upstream);
  });
  upstream.on('error', () => client.destroy());
  return upstream;
}
