// The reference for the agent benchmarks: a bare Node process with one timer per service,
// each firing on the same slot the agent would use and making the same connection the
// agent's prober makes (HTTP: a GET on a fresh connection, body read, socket destroyed;
// TCP: connect, then destroy; none: nothing, the timers alone; protocol:FILE: the bareExchange
// of a bench/protocols module, with TARGET the base64 JSON of {endpoint, options}). Nothing
// else: no scheduler, spool, stream or results.
//
//   node --import tsx bench/reference/bare-loop.ts http|tcp|none PORT SERVICES INTERVAL_MS WARMUP_MS MEASURE_MS
//   node --import tsx bench/reference/bare-loop.ts protocol:FILE TARGET SERVICES INTERVAL_MS WARMUP_MS MEASURE_MS
//
// Prints {"ready":true,"windowStart":…,"windowEnd":…} (epoch ms) at once, then after the window
// one JSON line with the checks started inside it and their lateness after the slot (ms, sorted).
import http from 'node:http';
import net from 'node:net';
import { offsetMs, nextSlot } from '../../agent/src/scheduler/slots.js';
import { serviceId } from './service-ids.js';

const [kind, port, services, intervalArg, warmupArg, measureArg] = process.argv.slice(2);
const interval = Number(intervalArg);
const windowStart = Date.now() + Number(warmupArg);
const windowEnd = windowStart + Number(measureArg);
const lateness: number[] = [];

const connections: Record<string, () => void> = {
  http() {
    const req = http.get({ host: '127.0.0.1', port: Number(port), path: '/', agent: false, headers: { 'user-agent': 'bare-loop' } }, (res) => {
      res.on('data', () => undefined);
      res.once('end', () => req.socket?.destroy());
    });
    req.once('error', () => req.socket?.destroy());
  },
  tcp() {
    const socket = net.connect({ host: '127.0.0.1', port: Number(port) });
    socket.once('connect', () => socket.destroy());
    socket.once('error', () => socket.destroy());
  },
  none: () => undefined,
};
const chosen = kind!.startsWith('protocol:') ? await protocolExchange(kind!.slice('protocol:'.length), port!) : connections[kind!];
if (!chosen) throw new Error(`unknown kind ${kind}`);
const connect: () => void = chosen;

/** One exchange of a bench/protocols module, its target decoded once. */
async function protocolExchange(file: string, target: string): Promise<() => void> {
  const { bareExchange } = (await import(file)) as { bareExchange(endpoint: string, options: Record<string, unknown>): Promise<void> };
  const { endpoint, options } = JSON.parse(Buffer.from(target, 'base64').toString('utf8')) as { endpoint: string; options: Record<string, unknown> };
  return () => void bareExchange(endpoint, options);
}

function arm(offset: number, slot: number): void {
  setTimeout(() => {
    const now = Date.now();
    if (now >= windowStart && now < windowEnd) lateness.push(Math.max(0, now - slot));
    connect();
    arm(offset, nextSlot(now + interval / 2, interval, offset));
  }, Math.max(0, slot - Date.now()));
}

const start = Date.now();
for (let i = 0; i < Number(services); i++) {
  const offset = offsetMs(serviceId(i), interval);
  arm(offset, nextSlot(start, interval, offset));
}
console.log(JSON.stringify({ ready: true, windowStart, windowEnd }));
setTimeout(() => {
  console.log(JSON.stringify({ checks: lateness.length, lateness: lateness.sort((a, b) => a - b) }));
  process.exit(0);
}, windowEnd - Date.now() + 50);
