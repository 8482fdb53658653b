// Chat channels: without a provider the original {"text"} body (API.md); with one, that
// service's own format, built from one ChatMessage.
import type { ChatProvider } from '../../channel-providers.schema.js';
import { digestText } from '../../message.js';
import { postJson } from '../http-send.js';
import type { Sender } from '../sender.js';
import { chatMessage } from './chat-message.js';
import { sendDiscord } from './discord.js';
import { sendGoogleChat } from './google-chat.js';
import { sendGotify } from './gotify.js';
import { sendMattermost } from './mattermost.js';
import { sendNtfy } from './ntfy.js';
import type { ProviderSend } from './provider-send.js';
import { sendPushover } from './pushover.js';
import { sendSlack } from './slack.js';
import { sendTeams } from './teams.js';
import { sendTelegram } from './telegram.js';

const PROVIDERS: Record<ChatProvider, ProviderSend> = {
  slack: sendSlack,
  discord: sendDiscord,
  teams: sendTeams,
  telegram: sendTelegram,
  mattermost: sendMattermost,
  google_chat: sendGoogleChat,
  ntfy: sendNtfy,
  gotify: sendGotify,
  pushover: sendPushover,
};

/** publicUrl: the dashboard's address, for the links in messages. */
export function chatSender(publicUrl: string): Sender {
  return (request) => {
    const { config, payload, digest, rendered } = request;
    const provider = config.provider as ChatProvider | undefined;
    if (!provider) return postJson(String(config.webhook_url), { text: digest ? digestText(digest) : (rendered?.text ?? payload.text) });
    return PROVIDERS[provider](chatMessage(request, publicUrl), config);
  };
}
