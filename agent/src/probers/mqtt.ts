// MQTT: connects (MQTT 3.1.1, which every broker speaks; clean session) and, with options.topic,
// subscribes, publishes a unique payload and waits for that payload to come back (a round trip
// through the broker); with publish false it waits for a retained or the next message instead.
// The message received is the `message` source (and `json`, which parses it).
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import { MqttClient, type IClientOptions } from 'mqtt';
import { withoutBrackets } from '../../../shared/src/endpoints.js';
import { clientTls } from './client-tls.js';
import { describeNetworkError } from './network-errors.js';
import type { ProbeSignal } from './probe-signal.js';
import type { Probe, ProbeDetails, Prober, ProbeResult, ProbeTarget } from './prober.js';

type Phase = 'connect' | 'subscribe' | 'message';

/** mqtt.js would otherwise make a `debug` logger per client (and ask whether stderr is a TTY): CPU on every check. */
const noLog = () => undefined;

export function mqttProber(): Prober<'MQTT'> {
  return { family: 'MQTT', prepare };
}

function prepare(target: ProbeTarget<'MQTT'>): Probe {
  let openSocket: () => net.Socket;
  try {
    openSocket = socketOpener(target);
  } catch (err) {
    const message = (err as Error).message;
    return () => Promise.resolve({ ok: false, responseTimeMs: 0, message, details: {} });
  }
  return (signal) => check(target, openSocket, signal);
}

/** Our own socket rather than mqtt.connect's URL handling: parsed once, and TLS with the shared secure context. */
function socketOpener(target: ProbeTarget<'MQTT'>): () => net.Socket {
  const url = new URL(target.endpoint);
  const host = withoutBrackets(url.hostname);
  const secure = url.protocol === 'mqtts:';
  const port = url.port === '' ? (secure ? 8883 : 1883) : Number(url.port);
  // Nagle's algorithm would hold SUBSCRIBE and PUBLISH back for the broker's delayed ACK.
  if (!secure) return () => net.connect({ host, port, noDelay: true });
  // RFC 6066 forbids an IP address as server name.
  const options: tls.ConnectionOptions = { host, port, servername: net.isIP(host) ? undefined : host, ...clientTls(target.options) };
  return () => tls.connect(options).setNoDelay(true);
}

function check(target: ProbeTarget<'MQTT'>, openSocket: () => net.Socket, signal: ProbeSignal): Promise<ProbeResult> {
  const { topic, username, password } = target.options;
  const nonce = randomBytes(8).toString('hex');
  // Only this check's own payload ends a round trip: other messages on the topic are someone else's.
  const expected = topic !== undefined && target.options.publish !== false ? Buffer.from(`{"outpost_probe":"${nonce}"}`) : undefined;
  const started = performance.now();
  const since = (from: number) => Math.round(performance.now() - from);
  const options: IClientOptions = {
    clientId: `outpost-probe-${nonce}`,
    clean: true,
    // One attempt per check: the agent retries, not the client.
    reconnectPeriod: 0,
    connectTimeout: target.timeoutMs,
    keepalive: 0,
    resubscribe: false,
    log: noLog,
    username,
    password,
  };
  const client = new MqttClient(openSocket, options);
  return new Promise<ProbeResult>((resolve) => {
    const details: ProbeDetails = {};
    let phase: Phase = 'connect';
    let settled = false;
    let waitingSince = started;
    const finish = (ok: boolean, message: string, received?: string) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      client.end(true);
      resolve({ ok, responseTimeMs: since(started), message, details, ...(received !== undefined ? { observed: { message: received } } : {}) });
    };
    const onAbort = () => finish(false, timedOut(target, phase));
    signal.addEventListener('abort', onAbort, { once: true });

    client.on('error', (err) => finish(false, describeFailure(err, phase, target)));
    client.on('close', () => finish(false, closedMessage(phase, topic)));
    client.once('connect', () => {
      details.connect_ms = since(started);
      if (topic === undefined) return finish(true, `MQTT connected in ${details.connect_ms} ms`);
      phase = 'subscribe';
      const subscribedAt = performance.now();
      client.subscribe(topic, { qos: 0 }, (err) => {
        if (settled) return;
        if (err) return finish(false, `the broker refused the subscription to topic "${topic}"`);
        details.subscribe_ms = since(subscribedAt);
        phase = 'message';
        waitingSince = performance.now();
        if (expected) client.publish(topic, expected, { qos: 0 });
      });
    });
    client.on('message', (receivedTopic, payload, packet) => {
      if (expected) {
        if (!payload.equals(expected)) return;
        details.round_trip_ms = since(waitingSince);
        return finish(true, `MQTT round trip on ${topic} in ${details.round_trip_ms} ms`, payload.toString('utf8'));
      }
      details.wait_ms = since(waitingSince);
      details.topic = receivedTopic;
      details.retained = packet.retain;
      finish(true, `MQTT ${packet.retain ? 'retained message' : 'message'} on ${receivedTopic} in ${since(started)} ms`, payload.toString('utf8'));
    });
  });
}

function timedOut(target: ProbeTarget<'MQTT'>, phase: Phase): string {
  if (phase === 'message') return `no message on topic "${target.options.topic}" within ${target.timeoutMs} ms`;
  return `timed out after ${target.timeoutMs} ms${phase === 'subscribe' ? ' waiting for SUBACK' : ''}`;
}

function closedMessage(phase: Phase, topic: string | undefined): string {
  if (phase === 'connect') return 'the server closed the connection before CONNACK';
  return phase === 'subscribe' ? 'the broker closed the connection before SUBACK' : `the broker closed the connection while waiting on topic "${topic}"`;
}

function describeFailure(err: Error & { code?: unknown }, phase: Phase, target: ProbeTarget<'MQTT'>): string {
  // Socket and TLS errors carry node's string codes; CONNACK refusals carry the return code.
  if (typeof err.code === 'string') return describeNetworkError(err);
  if (err.message === 'connack timeout') return timedOut(target, phase);
  if (phase !== 'connect') return `MQTT protocol error: ${err.message}`;
  if (typeof err.code === 'number') return connackRefusal(err.code, err.message, target.options.username !== undefined);
  return `not an MQTT broker (${err.message})`;
}

/** MQTT 3.1.1 CONNACK return codes (section 3.2.2.3); mosquitto answers 5 to a wrong password too. */
function connackRefusal(code: number, message: string, withUsername: boolean): string {
  if (code === 4) return 'MQTT login refused: bad user name or password';
  if (code === 5) return `MQTT login refused: not authorized${withUsername ? ' (wrong username or password?)' : ' (no username given)'}`;
  return `MQTT ${message.replace(/^Connection refused: /, 'connection refused: ')} (return code ${code})`;
}
