// The bare loop's UDP exchange for the bench/protocols modules: a connected socket, one
// request (made once the socket is bound, for protocols that name their own port), and the
// first datagram `answers` accepts; a lost one is given up after the check's timeout.
import dgram from 'node:dgram';

/** A check's timeout in the benchmark's assignments. */
const LOST_MS = 5_000;

export function bareDatagram(host: string, port: number, request: Buffer | ((localPort: number) => Buffer | string), answers: (reply: Buffer) => boolean = () => true): Promise<void> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket('udp4');
    const done = () => {
      clearTimeout(timer);
      socket.close();
      resolve();
    };
    const timer = setTimeout(done, LOST_MS);
    socket.on('message', (reply) => answers(reply) && done());
    socket.once('error', done);
    socket.connect(port, host, () => socket.send(typeof request === 'function' ? request(socket.address().port) : request));
  });
}

/** host:port, as the datagram probers' endpoints are written in the benchmark. */
export function hostAndPort(endpoint: string): [string, number] {
  const colon = endpoint.lastIndexOf(':');
  return [endpoint.slice(0, colon), Number(endpoint.slice(colon + 1))];
}
