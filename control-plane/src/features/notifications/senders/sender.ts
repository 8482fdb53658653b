import type { NotificationPayload } from '../delivery.js';

export interface SendRequest {
  /** The channel's config with its secrets opened. */
  config: Record<string, unknown>;
  payload: NotificationPayload;
  /** Set for a storm digest: every payload it stands for (payload is the first). */
  digest?: NotificationPayload[];
  /** The channel the delivery goes to (absent where a sender is called on its own). */
  channel?: { id: string; organizationId: string };
  /** The channel's template rendered for this event: its words replace the default ones. */
  rendered?: RenderedMessage;
}

/** A rendered template; a part left out (or rendered blank) keeps the default words. */
export interface RenderedMessage {
  /** The message text: chat text, SMS text, the webhook's `text`, the e-mail body. */
  text?: string;
  /** E-mail only: the subject line. */
  subject?: string;
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
