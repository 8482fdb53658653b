import type { SendOutcome } from '../sender.js';
import type { ChatMessage } from './chat-message.js';

/** Posts a message in one provider's format; config is the channel's, secrets opened. */
export type ProviderSend = (message: ChatMessage, config: Record<string, unknown>) => Promise<SendOutcome>;
