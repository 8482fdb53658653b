// The targets the agent benchmarks probe, in a process of their own so their CPU is nobody's:
// an HTTP server answering 200 with a short body, and a TCP listener that accepts and closes.
// Prints {"http": port, "tcp": port} once listening; runs until SIGTERM.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

const httpServer = http.createServer((_req, res) => res.end('ok\n'));
const tcpServer = net.createServer((socket) => socket.end());
await Promise.all([new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r)), new Promise<void>((r) => tcpServer.listen(0, '127.0.0.1', r))]);
console.log(JSON.stringify({ http: (httpServer.address() as AddressInfo).port, tcp: (tcpServer.address() as AddressInfo).port }));
process.once('SIGTERM', () => process.exit(0));
