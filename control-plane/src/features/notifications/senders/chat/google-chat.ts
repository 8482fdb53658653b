// Google Chat incoming webhook: a cardsV2 card (header, detail, facts, a button to the
// dashboard) with fallbackText for notifications; messages stay well under 32,000 bytes.
import { postJson } from '../http-send.js';
import { facts, headline, type ChatMessage } from './chat-message.js';
import { truncate } from '../truncate.js';
import { escapeMarkup as escape } from './escape-markup.js';
import type { ProviderSend } from './provider-send.js';

export function googleChatBody(m: ChatMessage) {
  return {
    fallbackText: truncate(m.text, 1000),
    cardsV2: [
      {
        cardId: 'outpost-alert',
        card: {
          header: { title: truncate(headline(m), 200), subtitle: truncate([m.service, m.locations.join(', ')].filter(Boolean).join(' · ') || 'Outpost', 200) },
          sections: [
            {
              widgets: [
                { textParagraph: { text: escape(truncate(m.body, 4000)) } },
                ...facts(m).map((f) => ({ decoratedText: { topLabel: f.label, text: escape(truncate(f.value, 500)) } })),
                { buttonList: { buttons: [{ text: m.linkLabel, onClick: { openLink: { url: m.link } } }] } },
              ],
            },
          ],
        },
      },
    ],
  };
}

export const sendGoogleChat: ProviderSend = (m, config) => postJson(String(config.webhook_url), googleChatBody(m));
