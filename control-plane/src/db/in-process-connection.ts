// A connection to the embedded database without a socket: the pg driver's stream (its `stream`
// option) linked in memory to a connection handler of the PGlite socket server, which this same
// process runs. Over loopback TCP every statement cost four system calls and two wake-ups of
// the event loop inside this one process (a write and a read at each end), more CPU than most
// statements themselves on a virtual machine (bench/idle.ts); in memory, the bytes are handed
// over directly. The server keeps serving real sockets (tests, backups), and its one query
// queue orders statements of both kinds, transactions included.
import { Duplex } from 'node:stream';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** One end of an in-memory pipe: what is written to it is read from the other end. */
class PipeEnd extends Duplex {
  other: PipeEnd | undefined;

  constructor() {
    // Either end finishing closes both, as a socket's close does (the PGlite handler waits for 'close').
    super({ allowHalfOpen: false });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.other?.push(chunk);
    done();
  }

  override _final(done: (err?: Error | null) => void): void {
    this.other?.push(null);
    done();
  }

  override _read(): void {
    // Data arrives when the other end writes.
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    const other = this.other;
    this.other = undefined;
    // The peer sees the connection end, as with a socket closed by its peer.
    if (other && !other.destroyed) other.destroy();
    done(err);
  }

  // What a socket offers that the pg driver and the PGlite handler call; nothing to set in memory.
  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }
}

/** The driver's end: connect() links it to a new handler of the server and then says 'connect', as a socket does. */
class DriverEnd extends PipeEnd {
  constructor(private readonly server: PGLiteSocketServer) {
    super();
  }

  connect(): this {
    const serverEnd = new PipeEnd();
    serverEnd.other = this;
    this.other = serverEnd;
    // A private method of the server (pglite-socket 0.2): it attaches a handler sharing the
    // server's query queue and counts the connection like a socket's.
    void (this.server as unknown as { handleConnection(socket: Duplex): Promise<void> }).handleConnection(serverEnd);
    process.nextTick(() => this.emit('connect'));
    return this;
  }
}

/** For the pg driver's `stream` option: a new in-memory connection to `server` each time. */
export function inProcessStream(server: PGLiteSocketServer): () => Duplex {
  return () => new DriverEnd(server);
}
