// Redis: AUTH first when a password is given, then PING. Passes on +PONG.
import { converse } from './conversation.js';
import type { Prober } from './prober.js';

/** A RESP array of bulk strings: how clients send commands. */
function command(...args: string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
}

export function redisProber(): Prober<'REDIS'> {
  return {
    family: 'REDIS',
    prepare: (target) => (signal) =>
      converse(target, signal, async (s) => {
        const { username, password } = target.options;
        if (password !== undefined) {
          s.write(username ? command('AUTH', username, password) : command('AUTH', password));
          const auth = await s.readLine();
          if (auth !== '+OK') return { ok: false, message: `Redis AUTH refused: ${auth.replace(/^-/, '').slice(0, 120)}` };
        }
        s.write(command('PING'));
        const reply = await s.readLine();
        const pingMs = s.elapsed();
        if (reply === '+PONG') return { ok: true, message: `Redis PONG in ${Math.round(pingMs)} ms`, details: { ping_ms: pingMs } };
        if (reply.startsWith('-')) return { ok: false, message: `Redis error: ${reply.slice(1, 120)}` };
        return { ok: false, message: `not a Redis reply: "${reply.slice(0, 80)}"` };
      }),
  };
}
