// A loopback TCP proxy that a test can cut and restore, to take a dependency "down", or
// freeze, to make it go silent without closing anything.
import net, { type AddressInfo } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Drops every connection and refuses new ones until restore(). */
  cut(): void;
  restore(): void;
  /** Keeps every connection open but passes no more bytes either way (a peer gone silent). */
  freeze(): void;
  close(): Promise<void>;
}

/** `observe` sees what each client sends, connection by connection (a fresh function per connection). */
export async function startTcpProxy(targetHost: string, targetPort: number, observe?: () => (chunk: Buffer) => void): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let open = true;
  const server = net.createServer((client) => {
    if (!open) return client.destroy();
    const upstream = net.connect(targetPort, targetHost);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    if (observe) client.on('data', observe());
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      open = true;
    },
    freeze() {
      for (const s of sockets) {
        s.unpipe();
        s.pause();
      }
    },
    async close() {
      open = false;
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
