// Chat services' incoming webhooks take {"text": ...}.
import { digestText } from '../message.js';
import { httpSend } from './http-send.js';
import type { Sender } from './sender.js';

export const chatSender: Sender = ({ config, payload, digest }) =>
  httpSend(String(config.webhook_url), {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: digest ? digestText(digest) : payload.text }),
  });
