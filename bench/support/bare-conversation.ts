// The bare loop's TCP exchange for the bench/protocols modules that speak over a stream: a
// connection without Nagle's delay (as the probers make theirs), `opening` written once
// connected, every chunk that arrives handed to `onData` (which writes the next request or ends
// the exchange), and a silent server given up on after the check's timeout.
import net from 'node:net';

/** A check's timeout in the benchmark's assignments. */
const SILENT_MS = 5_000;

export interface Talk {
  write(bytes: Buffer | string): void;
  /** Ends the exchange at once. */
  done(): void;
  /** Sends `bytes` (a goodbye), then ends the exchange. */
  endWith(bytes: Buffer): void;
}

export function bareConversation(host: string, port: number, opening: Buffer | string | undefined, onData: (chunk: Buffer, talk: Talk) => void): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, noDelay: true });
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(done, SILENT_MS);
    const talk: Talk = { write: (bytes) => socket.write(bytes), done, endWith: (bytes) => socket.end(bytes, done) };
    socket.on('error', done);
    socket.on('close', done);
    if (opening !== undefined) socket.once('connect', () => socket.write(opening));
    socket.on('data', (chunk: Buffer) => onData(chunk, talk));
  });
}
