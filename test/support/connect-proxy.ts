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
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
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
