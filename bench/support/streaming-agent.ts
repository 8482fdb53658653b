// An agent of the benchmarks that measure ingest: it connects over gRPC with the platform
// token and sends batches encoded before the clock starts, a few unacknowledged at a time, as
// the agent's publisher does after an outage. Its own work stays out of the measurement.
import { randomUUID } from 'node:crypto';
import { Client, credentials } from '@grpc/grpc-js';
import { AgentMessage, ControlMessage } from '../../shared/src/gen/agent.js';
import { AgentServiceService } from '../../shared/src/gen/agent_service.js';

export interface StreamingAgent {
  /** Sends the batches, `inFlight` unacknowledged at a time; answers how many results the acks counted as stored. */
  send(batches: Buffer[]): Promise<number>;
  close(): void;
}

export function encodeAgentMessage(message: AgentMessage): Buffer {
  return Buffer.from(AgentMessage.encode(message).finish());
}

/** An agent of location `bench` connected and welcomed. */
export async function connectStreamingAgent(grpcPort: number, token: string, inFlight: number): Promise<StreamingAgent> {
  const client = new Client(`127.0.0.1:${grpcPort}`, credentials.createInsecure());
  // The messages are encoded already: the stream passes them through.
  const call = client.makeBidiStreamRequest<Buffer, ControlMessage>(AgentServiceService.connect.path, (m) => m, (b) => ControlMessage.decode(b));
  let acked: (accepted: number) => void = () => {};
  let failed: (err: Error) => void = () => {};
  const welcomed = new Promise<void>((resolve, reject) => {
    failed = reject;
    call.on('error', (err: Error) => failed(err));
    call.on('data', (m: ControlMessage) => {
      if (m.payload?.$case === 'welcome') resolve();
      if (m.payload?.$case === 'ack') acked(m.payload.value.accepted);
    });
  });
  call.write(encodeAgentMessage({ payload: { $case: 'hello', value: { agentId: randomUUID(), token, version: 'bench', location: 'bench', capabilities: ['HTTP'], hostname: 'bench' } } }));
  await welcomed;
  return {
    send: (batches) =>
      new Promise<number>((resolve, reject) => {
        failed = reject;
        let sent = 0;
        let acks = 0;
        let accepted = 0;
        const sendNext = () => call.write(batches[sent++]!);
        acked = (n) => {
          acks += 1;
          accepted += n;
          if (sent < batches.length) sendNext();
          if (acks === batches.length) resolve(accepted);
        };
        while (sent < Math.min(inFlight, batches.length)) sendNext();
      }),
    close() {
      call.cancel();
      client.close();
    },
  };
}
