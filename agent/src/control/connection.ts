// The agent's end of the stream: dials, says hello, hands control messages to the agent,
// and reconnects with backoff when the stream breaks. A fatal refusal (bad token) stops it.
// With several control-plane replicas (`a:9090,b:9090`), each new attempt after a failure
// dials the next one, so a dead replica costs one backoff step; one name that resolves to
// several addresses is tried address by address by the gRPC channel itself.
import { credentials as grpcCredentials, status as GrpcStatus, type ChannelCredentials, type ClientDuplexStream, type StatusObject } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { AgentServiceClient, type AgentMessage, type ControlMessage, type Hello } from '../../../shared/src/gen/agent.js';
import { createBackoff, type Backoff } from './backoff.js';
import { classifyStreamError, describeStreamError } from './errors.js';
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
  credentials?: ChannelCredentials;
  backoff?: Backoff;
  /** A stream that is not welcomed this long after the hello is dropped and dialled again. */
  welcomeTimeoutMs?: number;
}

export interface Connection {
  start(): void;
  /** Writes a message if the stream is welcomed; false otherwise. */
  send(message: AgentMessage): boolean;
  isConnected(): boolean;
  stop(): void;
}

const DEFAULT_HEARTBEAT_SECONDS = 15;

export function createConnection(options: ConnectionOptions): Connection {
  const { server, hello, handlers, logger, backoff = createBackoff(), welcomeTimeoutMs = 30_000 } = options;
  const servers = splitServers(server);
  const clients = new Map<string, AgentServiceClient>();
  const clientFor = (target: string): AgentServiceClient => {
    let client = clients.get(target);
    if (!client) {
      client = new AgentServiceClient(target, options.credentials ?? grpcCredentials.createInsecure(), {
        // Finds a control plane that vanished without closing the TCP connection.
        'grpc.keepalive_time_ms': 20_000,
        'grpc.keepalive_timeout_ms': 10_000,
        'grpc.keepalive_permit_without_calls': 1,
        // The channel's own reconnect backoff grows to two minutes by default, during which every
        // call fails at once; keep it below our loop's so a returning control plane is found
        // within seconds.
        'grpc.initial_reconnect_backoff_ms': 250,
        'grpc.min_reconnect_backoff_ms': 250,
        'grpc.max_reconnect_backoff_ms': 2_000,
      });
      clients.set(target, client);
    }
    return client;
  };
  let attempt = 0;
  let call: ClientDuplexStream<AgentMessage, ControlMessage> | undefined;
  let welcomed = false;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | undefined;

  function dial(): void {
    if (stopped) return;
    const target = servers[attempt % servers.length]!;
    const current = clientFor(target).connect();
    call = current;
    welcomed = false;
    let welcomeOverdue = false;
    const welcomeTimer = setTimeout(() => {
      welcomeOverdue = true;
      current.cancel();
    }, welcomeTimeoutMs);

    current.on('data', (message: ControlMessage) => {
      if (call !== current) return; // a late message of a stream already given up
      if (message.payload?.$case !== 'welcome') return handlers.onMessage(message);
      clearTimeout(welcomeTimer);
      welcomed = true;
      backoff.reset();
      logger.info({ server: target, agentId: message.payload.value.agentId }, 'connected to the control plane');
      handlers.onWelcome(message.payload.value.heartbeatIntervalSeconds || DEFAULT_HEARTBEAT_SECONDS);
    });
    // 'status' carries the same failure and always comes, also after a clean end or a cancel;
    // the listener only keeps an 'error' event from being thrown.
    current.on('error', () => undefined);
    current.on('status', (status: StatusObject) => {
      clearTimeout(welcomeTimer);
      if (call === current) call = undefined;
      const wasWelcomed = welcomed;
      welcomed = false;
      if (wasWelcomed) handlers.onDisconnected();
      if (stopped) return;
      const reason = welcomeOverdue ? `no welcome within ${welcomeTimeoutMs} ms` : status.code === GrpcStatus.OK ? 'the control plane ended the stream' : describeStreamError(status);
      if (!welcomeOverdue && classifyStreamError(status) === 'fatal') {
        stop();
        handlers.onFatal(reason);
        return;
      }
      const retryInMs = backoff.next();
      attempt++;
      logger.warn({ server: target, reason, retryInMs, next: servers[attempt % servers.length] }, 'disconnected from the control plane');
      retryTimer = setTimeout(dial, retryInMs);
    });
    current.write({ payload: { $case: 'hello', value: hello() } });
  }

  function stop(): void {
    if (stopped) return;
    stopped = true;
    clearTimeout(retryTimer);
    call?.end();
    call?.cancel();
    for (const client of clients.values()) client.close();
  }

  return {
    start: dial,
    send(message) {
      if (!call || !welcomed) return false;
      call.write(message);
      return true;
    },
    isConnected: () => welcomed,
    stop,
  };
}
