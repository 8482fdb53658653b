// ntfy JSON publishing: POST to the server's root with the topic in the body; priority 1-5,
// emoji tags, a click URL. Messages over 4096 bytes would turn into attachments, so they are cut.
import { postJson } from '../http-send.js';
import { facts, headline, type ChatMessage, type ChatStatus } from './chat-message.js';
import { truncate, truncateBytes } from '../truncate.js';
import type { ProviderSend } from './provider-send.js';

const TAG: Record<ChatStatus, string> = { FIRING: 'rotating_light', ACKNOWLEDGED: 'eyes', RESOLVED: 'white_check_mark', TEST: 'information_source' };

export function ntfyBody(m: ChatMessage, topic: string) {
  const details = facts(m).map((f) => `${f.label}: ${f.value}`).join('\n');
  return {
    topic,
    title: truncate(headline(m), 250),
    message: truncateBytes(`${m.body}\n\n${details}`, 4000),
    priority: m.urgency,
    tags: [TAG[m.status], 'outpost'],
    click: m.link,
    actions: [{ action: 'view', label: m.linkLabel, url: m.link, clear: true }],
  };
}

export const sendNtfy: ProviderSend = (m, config) =>
  postJson(`${String(config.server_url).replace(/\/+$/, '')}/`, ntfyBody(m, String(config.topic)), typeof config.token === 'string' ? { authorization: `Bearer ${config.token}` } : {});
