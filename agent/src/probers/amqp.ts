// AMQP 0-9-1 (RabbitMQ and the like): logs in to the virtual host named by the URL's path and
// opens a channel; with options.queue, a passive declare (which creates nothing) reads the
// queue's message and consumer counts, the `message_count` and `consumer_count` sources.
import amqp, { type Channel, type ChannelModel, type Options, type SocketOptions } from 'amqplib';
import { withoutBrackets } from '../../../shared/src/endpoints.js';
import { abortable } from './abortable.js';
import { clientTls } from './client-tls.js';
import { describeNetworkError } from './network-errors.js';
import type { ProbeSignal } from './probe-signal.js';
import type { Probe, ProbeDetails, Prober, ProbeResult, ProbeTarget } from './prober.js';

interface Broker {
  connect: Options.Connect;
  socket: SocketOptions;
  /** As the broker names it, for messages. */
  vhost: string;
}

type Phase = 'connect' | 'channel' | 'queue';

const ignore = () => undefined;

export function amqpProber(): Prober<'AMQP'> {
  return { family: 'AMQP', prepare };
}

function prepare(target: ProbeTarget<'AMQP'>): Probe {
  let broker: Broker;
  try {
    broker = brokerOf(target);
  } catch (err) {
    const message = (err as Error).message;
    return () => Promise.resolve({ ok: false, responseTimeMs: 0, message, details: {} });
  }
  return (signal) => check(target, broker, signal);
}

function brokerOf(target: ProbeTarget<'AMQP'>): Broker {
  const url = new URL(target.endpoint);
  const secure = url.protocol === 'amqps:';
  // Kept encoded: amqplib decodes it ("%2F" is the vhost "/", as in RabbitMQ's URIs); none is "/".
  const path = url.pathname.slice(1);
  const o = target.options;
  return {
    connect: {
      protocol: secure ? 'amqps' : 'amqp',
      hostname: withoutBrackets(url.hostname),
      port: url.port === '' ? (secure ? 5671 : 5672) : Number(url.port),
      // Without a username, guest/guest: amqplib's default and RabbitMQ's (which takes it from localhost only).
      username: o.username ?? 'guest',
      password: o.password ?? (o.username === undefined ? 'guest' : ''),
      vhost: path,
      // A check is over in seconds: no heartbeats to negotiate or send.
      heartbeat: 0,
    },
    // Nagle's algorithm would hold each small handshake frame back for the server's delayed ACK.
    socket: { noDelay: true, ...(secure ? clientTls(o) : {}) },
    vhost: path === '' ? '/' : decodeURIComponent(path),
  };
}

async function check(target: ProbeTarget<'AMQP'>, broker: Broker, signal: ProbeSignal): Promise<ProbeResult> {
  const queue = target.options.queue;
  const started = performance.now();
  const since = (from: number) => Math.round(performance.now() - from);
  // amqplib hands out no socket before the handshake is over: this destroys it at the deadline
  // whatever amqplib is waiting for, and after the check whatever state it was left in.
  const socketAbort = new AbortController();
  const onAbort = () => socketAbort.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const details: ProbeDetails = {};
  let phase: Phase = 'connect';
  let model: ChannelModel | undefined;
  try {
    // net.connect and tls.connect take the signal; amqplib passes its socket options on to them.
    const socketOptions: SocketOptions & { signal: AbortSignal } = { ...broker.socket, signal: socketAbort.signal };
    model = await abortable(amqp.connect(broker.connect, socketOptions), signal);
    // Whatever breaks the connection fails the step awaiting it; the event must not go unhandled.
    model.on('error', ignore);
    details.connect_ms = since(started);
    details.server = serverName(model.connection.serverProperties);
    phase = 'channel';
    const channelAt = performance.now();
    const channel: Channel = await abortable(model.createChannel(), signal);
    channel.on('error', ignore);
    details.channel_ms = since(channelAt);
    if (queue === undefined) return { ok: true, responseTimeMs: since(started), message: `AMQP channel open in ${since(started)} ms`, details };
    phase = 'queue';
    const declaredAt = performance.now();
    const { messageCount, consumerCount } = await abortable(channel.checkQueue(queue), signal);
    details.queue_ms = since(declaredAt);
    details.message_count = messageCount;
    details.consumer_count = consumerCount;
    const counts = `${plural(messageCount, 'message')}, ${plural(consumerCount, 'consumer')}`;
    return {
      ok: true,
      responseTimeMs: since(started),
      message: `AMQP queue ${queue}: ${counts} in ${since(started)} ms`,
      details,
      observed: { message_count: messageCount, consumer_count: consumerCount },
    };
  } catch (err) {
    const message = signal.aborted ? `timed out after ${target.timeoutMs} ms` : describeFailure(err, phase, broker, queue);
    return { ok: false, responseTimeMs: since(started), message, details };
  } finally {
    signal.removeEventListener('abort', onAbort);
    // Closing the connection closes its channel.
    if (model && !signal.aborted) await abortable(model.close(), signal).catch(ignore);
    socketAbort.abort();
  }
}

function describeFailure(err: unknown, phase: Phase, broker: Broker, queue: string | undefined): string {
  const e = err as { code?: unknown; message?: string };
  if (typeof e.code === 'string') return describeNetworkError(err);
  const message = e.message ?? String(err);
  if (phase === 'queue' && e.code === 404) return `queue "${queue}" not found in vhost ${broker.vhost}`;
  if (phase !== 'connect') return `AMQP ${phase === 'queue' ? `queue "${queue}"` : 'channel'} refused: ${serverText(message)}`;
  // amqplib's handshake errors are text only: what the broker said is recognised from it.
  if (message.includes('(ACCESS-REFUSED)')) return 'AMQP login refused: wrong username or password';
  // The broker closes with 530 NOT_ALLOWED, which amqplib reports without its text.
  if (message.startsWith('Expected ConnectionOpenOk; got <ConnectionClose')) return `AMQP vhost ${broker.vhost} refused: unknown, or not allowed to this user`;
  // The bytes read as a frame header announce an absurd size: not AMQP 0-9-1 (AMQP 1.0, HTTP, ...).
  if (message.startsWith('Frame size ')) return 'not an AMQP 0-9-1 server';
  return `AMQP handshake failed: ${serverText(message)}`;
}

/** The broker's own words in amqplib's 'Operation failed: ...; 404 (NOT-FOUND) with message "..."'. */
function serverText(message: string): string {
  const quoted = / with message "(.*)"$/.exec(message);
  return (quoted ? quoted[1]! : message).slice(0, 200);
}

function serverName(properties: { product?: unknown; version?: unknown }): string {
  return [properties.product, properties.version].filter((p) => p !== undefined).map(String).join(' ');
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
