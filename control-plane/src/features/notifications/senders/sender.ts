import type { NotificationPayload } from '../delivery.js';

export interface SendRequest {
  /** The channel's config with its secrets opened. */
  config: Record<string, unknown>;
  payload: NotificationPayload;
  /** Set for a storm digest: every payload it stands for (payload is the first). */
  digest?: NotificationPayload[];
}

export interface SendOutcome {
  statusCode: number | null;
}

/** A failed send; `permanent` ones are not retried (e.g. the channel type is not configured). */
export class SendError extends Error {
  constructor(
    message: string,
    readonly statusCode: number | null = null,
    readonly permanent = false,
  ) {
    super(message);
  }
}

export type Sender = (request: SendRequest) => Promise<SendOutcome>;
