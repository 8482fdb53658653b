// Microsoft Teams through a Workflows (Power Automate) webhook: a "message" carrying an
// Adaptive Card, the format that replaced the retired Office 365 connectors' MessageCard.
import { postJson } from '../http-send.js';
import { facts, headline, type ChatMessage, type ChatStatus } from './chat-message.js';
import { truncate } from '../truncate.js';
import type { ProviderSend } from './provider-send.js';

/** Adaptive Cards colour text by meaning, not by value. */
const COLOUR: Record<ChatStatus, string> = { FIRING: 'Attention', ACKNOWLEDGED: 'Warning', RESOLVED: 'Good', TEST: 'Default' };

export function teamsBody(m: ChatMessage) {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          msteams: { width: 'Full' },
          body: [
            { type: 'TextBlock', text: truncate(headline(m), 400), weight: 'Bolder', size: 'Medium', color: COLOUR[m.status], wrap: true },
            // Teams refuses messages over about 28 KB.
            { type: 'TextBlock', text: truncate(m.body, 8000), wrap: true },
            { type: 'FactSet', facts: facts(m).map((f) => ({ title: f.label, value: truncate(f.value, 1000) })) },
          ],
          actions: [{ type: 'Action.OpenUrl', title: m.linkLabel, url: m.link }],
        },
      },
    ],
  };
}

export const sendTeams: ProviderSend = (m, config) => postJson(String(config.webhook_url), teamsBody(m));
