// The agent's end of the stream: dials, says hello, hands control messages to the agent,
// and reconnects with backoff when the stream breaks. A fatal refusal (bad token) stops it.
// With several control-plane replicas (`a:9090,b:9090`), each new attempt after a failure
// dials the next one, so a dead replica costs one backoff step; one name that resolves to
// several addresses is tried address by address when connecting (Node's happy eyeballs).
import type { Logger } from 'pino';
import { AgentMessage, ControlMessage, type Hello } from '../../../shared/src/gen/agent.js';
import { GrpcCode, type GrpcStatus } from '../grpc/wire.js';
import { createBackoff, type Backoff } from './backoff.js';
import { classifyStreamError, describeStreamError } from './errors.js';
import { openGrpcStream, type GrpcStream, type StreamTls } from './grpc-stream.js';
import type { ProxySettings } from './proxy-tunnel.js';
import { splitServers } from './servers.js';

export interface ConnectionHandlers {
  /** The control plane accepted the hello; the stream is ready for results. */
  onWelcome(heartbeatIntervalSeconds: number): void;
  /** Every control message but the welcome. */
  onMessage(message: ControlMessage): void;
  /** A welcomed stream broke; a reconnect follows unless the failure was fatal. */
  onDisconnected(): void;
  /** The control plane refused the agent for good; the connection has stopped. */
  onFatal(reason: string): void;
}

export interface ConnectionOptions {
  /** HOST:PORT, or several separated by commas. */
  server: string;
  hello: () => Hello;
  handlers: ConnectionHandlers;
  logger: Logger;
  /** Plaintext when absent. */
  tls?: StreamTls;
  proxy?: ProxySettings;
  backoff?: Backoff;
  /** A stream that is not welcomed this long after the hello is dropped and dialled again. */
  welcomeTimeoutMs?: number;
}

export interface Connection {
  start(): void;
  /** Writes a message if the stream is welcomed; false otherwise. */
  send(message: AgentMessage): boolean;
  /** send() for an AgentMessage already encoded. */
  sendEncoded(bytes: Uint8Array): boolean;
  isConnected(): boolean;
  stop(): void;
}

const DEFAULT_HEARTBEAT_SECONDS = 15;
/** The one RPC of proto/agent_service.proto. */
export const CONNECT_PATH = '/monitoring.agent.v1.AgentService/Connect';

export function createConnection(options: ConnectionOptions): Connection {
  const { server, hello, handlers, logger, backoff = createBackoff(), welcomeTimeoutMs = 30_000 } = options;
  const servers = splitServers(server);
  let attempt = 0;
  let call: GrpcStream<AgentMessage> | undefined;
  let welcomed = false;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | undefined;

  function dial(): void {
    if (stopped) return;
    const target = servers[attempt % servers.length]!;
    const greeting = hello();
    welcomed = false;
    let welcomeOverdue = false;
    const current = openGrpcStream<AgentMessage, ControlMessage>(
      {
        target,
        path: CONNECT_PATH,
        tls: options.tls,
        proxy: options.proxy,
        userAgent: `outpost-agent/${greeting.version}`,
        encode: (message) => AgentMessage.encode(message).finish(),
        decode: (bytes) => ControlMessage.decode(bytes),
      },
      { onMessage, onStatus },
    );
    call = current;
    const welcomeTimer = setTimeout(() => {
      welcomeOverdue = true;
      current.cancel();
    }, welcomeTimeoutMs);

    function onMessage(message: ControlMessage): void {
      if (call !== current) return; // a late message of a stream already given up
      if (message.payload?.$case !== 'welcome') return handlers.onMessage(message);
      clearTimeout(welcomeTimer);
      welcomed = true;
      backoff.reset();
      logger.info({ server: target, agentId: message.payload.value.agentId }, 'connected to the control plane');
      handlers.onWelcome(message.payload.value.heartbeatIntervalSeconds || DEFAULT_HEARTBEAT_SECONDS);
    }
    function onStatus(status: GrpcStatus): void {
      clearTimeout(welcomeTimer);
      if (call === current) call = undefined;
      const wasWelcomed = welcomed;
      welcomed = false;
      if (wasWelcomed) handlers.onDisconnected();
      if (stopped) return;
      const reason = welcomeOverdue ? `no welcome within ${welcomeTimeoutMs} ms` : status.code === GrpcCode.OK ? 'the control plane ended the stream' : describeStreamError(status);
      if (!welcomeOverdue && classifyStreamError(status) === 'fatal') {
        stop();
        handlers.onFatal(reason);
        return;
      }
      const retryInMs = backoff.next();
      attempt++;
      logger.warn({ server: target, reason, retryInMs, next: servers[attempt % servers.length] }, 'disconnected from the control plane');
      retryTimer = setTimeout(dial, retryInMs);
    }
    current.write({ payload: { $case: 'hello', value: greeting } });
  }

  function stop(): void {
    if (stopped) return;
    stopped = true;
    clearTimeout(retryTimer);
    call?.end();
    call?.cancel();
  }

  return {
    start: dial,
    send(message) {
      if (!call || !welcomed) return false;
      call.write(message);
      return true;
    },
    sendEncoded(bytes) {
      if (!call || !welcomed) return false;
      call.writeEncoded(bytes);
      return true;
    },
    isConnected: () => welcomed,
    stop,
  };
}
