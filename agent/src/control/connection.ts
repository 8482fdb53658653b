// The agent's end of the stream: dials, says hello, hands control messages to the agent,
// and reconnects with backoff when the stream breaks. A fatal refusal (bad token) stops it.
import { credentials as grpcCredentials, type ChannelCredentials, type ClientDuplexStream } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { AgentServiceClient, type AgentMessage, type ControlMessage, type Hello } from '../../../shared/src/gen/agent.js';
import { createBackoff, type Backoff } from './backoff.js';
import { classifyStreamError, describeStreamError } from './errors.js';

export interface ConnectionHandlers {
  /** The control plane accepted the hello; the stream is ready for results. */
  onWelcome(heartbeatIntervalSeconds: number): void;
  onMessage(message: ControlMessage): void;
  onDisconnected(): void;
  onFatal(reason: string): void;
}

export interface ConnectionOptions {
  server: string;
  hello: () => Hello;
  handlers: ConnectionHandlers;
  logger: Logger;
  credentials?: ChannelCredentials;
  backoff?: Backoff;
}

export interface Connection {
  start(): void;
  /** Writes a message if the stream is up; false otherwise. */
  send(message: AgentMessage): boolean;
  isConnected(): boolean;
  stop(): void;
}

export function createConnection({ server, hello, handlers, logger, credentials, backoff = createBackoff() }: ConnectionOptions): Connection {
  const client = new AgentServiceClient(server, credentials ?? grpcCredentials.createInsecure(), {
    'grpc.keepalive_time_ms': 20_000,
    'grpc.keepalive_timeout_ms': 10_000,
    'grpc.keepalive_permit_without_calls': 1,
    // The channel's own reconnect backoff grows to two minutes by default, during which every
    // call fails at once; keep it short so our loop finds a returning control plane quickly.
    'grpc.initial_reconnect_backoff_ms': 250,
    'grpc.min_reconnect_backoff_ms': 250,
    'grpc.max_reconnect_backoff_ms': 5_000,
  });
  let call: ClientDuplexStream<AgentMessage, ControlMessage> | undefined;
  let welcomed = false;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | undefined;

  function dial(): void {
    if (stopped) return;
    const current = client.connect();
    call = current;
    welcomed = false;
    let ended = false;
    const end = (err?: unknown) => {
      if (ended) return;
      ended = true;
      if (call === current) call = undefined;
      const wasWelcomed = welcomed;
      welcomed = false;
      if (wasWelcomed) handlers.onDisconnected();
      if (stopped) return;
      if (err && classifyStreamError(err) === 'fatal') {
        stopped = true;
        handlers.onFatal(describeStreamError(err));
        return;
      }
      const delay = backoff.next();
      logger.warn({ reason: err ? describeStreamError(err) : 'stream ended', retryInMs: delay }, 'disconnected from the control plane');
      retryTimer = setTimeout(dial, delay);
    };
    current.on('data', (message: ControlMessage) => {
      if (message.payload?.$case === 'welcome') {
        welcomed = true;
        backoff.reset();
        logger.info({ server, agentId: message.payload.value.agentId }, 'connected to the control plane');
        handlers.onWelcome(message.payload.value.heartbeatIntervalSeconds || 15);
        return;
      }
      handlers.onMessage(message);
    });
    current.on('error', (err) => end(err));
    current.on('end', () => end());
    current.write({ payload: { $case: 'hello', value: hello() } });
  }

  return {
    start: dial,
    send(message) {
      if (!call || !welcomed) return false;
      call.write(message);
      return true;
    },
    isConnected: () => welcomed,
    stop() {
      stopped = true;
      clearTimeout(retryTimer);
      if (call) {
        call.end();
        call.cancel();
      }
      client.close();
    },
  };
}
