// A TCP conversation for the protocols that speak first (SMTP, FTP, IMAP) or in small
// binary messages (Redis, PostgreSQL): connect with timings, read lines or bytes, write.
// Aborting the signal destroys the socket, which ends any pending read.
import net from 'node:net';
import tls from 'node:tls';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import type { ProbeSignal } from './probe-signal.js';

export class ProbeFailure extends Error {}

export class SocketSession {
  private buffer = Buffer.alloc(0);
  private waiter: (() => void) | undefined;
  private failure: Error | undefined;
  /** The server ended the connection (FIN), rather than an error or an abort. */
  private peerClosed = false;
  readonly timings: Record<string, number> = {};

  private constructor(
    private socket: net.Socket,
    private readonly started: number,
  ) {
    this.attach(socket);
  }

  /** Connects to `endpoint` (host:port); rejects with the socket error when it cannot. */
  static open(endpoint: string, signal: ProbeSignal): Promise<SocketSession> {
    const address = parseHostPort(endpoint);
    if (!address) return Promise.reject(new ProbeFailure(`bad endpoint ${endpoint}`));
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: address.host, port: address.port });
      const session = new SocketSession(socket, started);
      const onAbort = () => socket.destroy(new ProbeFailure('aborted'));
      signal.addEventListener('abort', onAbort, { once: true });
      socket.once('close', () => signal.removeEventListener('abort', onAbort));
      socket.once('lookup', () => (session.timings.dns_ms = session.elapsed()));
      socket.once('connect', () => {
        session.timings.connect_ms = Math.round((session.elapsed() - (session.timings.dns_ms ?? 0)) * 10) / 10;
        resolve(session);
      });
      socket.once('error', reject);
    });
  }

  elapsed(): number {
    return Math.round((performance.now() - this.started) * 10) / 10;
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** One CRLF- or LF-terminated line, without its terminator. */
  async readLine(maxBytes = 8192): Promise<string> {
    for (;;) {
      const end = this.buffer.indexOf(0x0a);
      if (end >= 0) {
        const line = this.buffer.subarray(0, end).toString('utf8').replace(/\r$/, '');
        this.buffer = this.buffer.subarray(end + 1);
        return line;
      }
      if (this.buffer.length > maxBytes) throw new ProbeFailure('the server sent a line that is too long');
      await this.more();
    }
  }

  /** A reply of the SMTP/FTP form: "220-..." continuation lines up to "220 ...". */
  async readReply(protocol: 'SMTP' | 'FTP'): Promise<{ code: number; lines: string[] }> {
    const lines: string[] = [];
    for (let i = 0; i < 100; i++) {
      const line = await this.readLine();
      lines.push(line);
      const match = /^(\d{3})([ -]?)/.exec(line);
      if (!match) throw new ProbeFailure(`not an ${protocol} reply: "${line.slice(0, 80)}"`);
      if (match[2] !== '-') return { code: Number(match[1]), lines };
    }
    throw new ProbeFailure('the reply has too many lines');
  }

  async readBytes(count: number): Promise<Buffer> {
    while (this.buffer.length < count) await this.more();
    const bytes = this.buffer.subarray(0, count);
    this.buffer = this.buffer.subarray(count);
    return bytes;
  }

  /**
   * What the server sends until `maxBytes` (the rest is left unread), its close, or `quietMs`
   * without more once it has started. Before the first byte it waits `firstByteMs`, or as long
   * as the connection lasts when undefined (a server that speaks first may take its time).
   */
  async readUntilQuiet(maxBytes: number, quietMs: number, firstByteMs?: number): Promise<{ bytes: Buffer; lastByteMs?: number }> {
    let lastByteMs: number | undefined;
    while (this.buffer.length < maxBytes && !this.failure) {
      const before = this.buffer.length;
      await this.wakeWithin(before === 0 ? firstByteMs : quietMs);
      if (this.buffer.length === before) break;
      lastByteMs = this.elapsed();
    }
    if (this.failure && !this.peerClosed) throw this.failure;
    const bytes = this.buffer.subarray(0, maxBytes);
    this.buffer = this.buffer.subarray(bytes.length);
    return { bytes, lastByteMs };
  }

  /** Wraps the connection in TLS (after a protocol's own "go ahead"); certificates are not judged. */
  async startTls(servername?: string): Promise<void> {
    const plain = this.socket;
    plain.removeAllListeners('data');
    const secure = tls.connect({ socket: plain, rejectUnauthorized: false, servername });
    await new Promise<void>((resolve, reject) => {
      secure.once('secureConnect', resolve);
      secure.once('error', reject);
    });
    this.socket = secure;
    this.attach(secure);
    this.timings.tls_ms = this.elapsed();
  }

  close(): void {
    this.socket.destroy();
  }

  private attach(socket: net.Socket): void {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.wake();
    });
    socket.on('error', (err) => {
      this.failure = err;
      this.wake();
    });
    socket.on('close', () => {
      this.peerClosed = this.failure === undefined;
      this.failure ??= new ProbeFailure('the server closed the connection');
      this.wake();
    });
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  /** Resolves on the next data, close or error, or after `ms` (never when undefined). */
  private wakeWithin(ms: number | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(() => this.wake(), ms);
      this.waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async more(): Promise<void> {
    if (this.failure) throw this.failure;
    await new Promise<void>((resolve) => (this.waiter = resolve));
    if (this.failure && this.buffer.length === 0) throw this.failure;
  }
}
