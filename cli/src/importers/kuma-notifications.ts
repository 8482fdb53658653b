// Uptime Kuma's notification providers as Outpost channels where one speaks to the same
// service; webhook URLs (which carry their tokens), tokens and keys become ${VARIABLE}s.
import type { z } from 'zod';
import type { ChannelEntry } from '../config-as-code/file-schema.js';
import { parsedJson, text, type KumaNotification, type Row } from './kuma-data.js';
import { SECRET_HEADER } from './kuma-http.js';
import { skip } from './kuma-service.js';
import { variableName, type ImportReport } from './import-report.js';

type Channel = z.input<typeof ChannelEntry>;

/** Chat services reached through one webhook URL: Kuma's provider type, its URL key, Outpost's provider. */
const WEBHOOK_CHATS: Record<string, [key: string, provider: string]> = {
  slack: ['slackwebhookURL', 'slack'],
  discord: ['discordWebhookUrl', 'discord'],
  teams: ['webhookUrl', 'teams'],
  mattermost: ['mattermostWebhookUrl', 'mattermost'],
  GoogleChat: ['googleChatWebhookURL', 'google_chat'],
};

export interface ImportedChannels {
  channels: Channel[];
  /** A Kuma notification's id -> the names of the channels made from it. */
  byNotification: Map<number, string[]>;
}

export function importNotifications(notifications: KumaNotification[], report: ImportReport): ImportedChannels {
  const channels: Channel[] = [];
  const byNotification = new Map<number, string[]>();
  const taken = new Set<string>();
  for (const n of notifications) {
    let name = n.name || `notification ${n.id}`;
    for (let i = 2; taken.has(name); i++) name = `${n.name} (${i})`;
    const made = channelsOf(n, name, report);
    for (const c of made) {
      taken.add(c.name);
      channels.push(n.active ? c : { ...c, enabled: false });
    }
    if (made.length > 0) byNotification.set(n.id, made.map((c) => c.name));
  }
  return { channels, byNotification };
}

function channelsOf(n: KumaNotification, name: string, report: ImportReport): Channel[] {
  const c = n.config;
  const type = text(c.type) ?? '?';
  const where = `notification ${name}`;
  const secret = (key: string, what: string) => report.secret(variableName(name, what), text(c[key]) ?? '', `the ${what} of ${where}`);
  const chat = WEBHOOK_CHATS[type];
  if (chat) {
    if (!text(c[chat[0]])) return none(report, where, `no ${chat[0]}`);
    reportExtras(c, ['slackchannel', 'slackusername', 'slackiconemo', 'discordUsername', 'mattermostchannel', 'mattermostusername', 'mattermosticonurl', 'mattermosticonemo'], where, report);
    // A chat webhook URL carries its token: it is a secret.
    return [{ name, type: 'chat', config: { provider: chat[1], webhook_url: secret(chat[0], 'webhook url') } } as Channel];
  }
  switch (type) {
    case 'telegram':
      if (text(c.telegramMessageThreadID)) report.unmapped(where, 'message thread id: Outpost posts to the chat itself');
      return [{ name, type: 'chat', config: { provider: 'telegram', bot_token: secret('telegramBotToken', 'bot token'), chat_id: text(c.telegramChatID) ?? '', ...(text(c.telegramServerUrl) ? { api_url: text(c.telegramServerUrl) } : {}) } }];
    case 'ntfy': {
      const method = text(c.ntfyAuthenticationMethod) ?? 'none';
      if (method === 'usernamePassword') report.unmapped(where, "user name and password: Outpost's ntfy channel authenticates with an access token; set config.token by hand");
      return [
        {
          name,
          type: 'chat',
          config: { provider: 'ntfy', server_url: text(c.ntfyserverurl) ?? 'https://ntfy.sh', topic: text(c.ntfytopic) ?? '', ...(method === 'accessToken' && text(c.ntfyaccesstoken) ? { token: secret('ntfyaccesstoken', 'access token') } : {}) },
        },
      ];
    }
    case 'gotify':
      return [{ name, type: 'chat', config: { provider: 'gotify', server_url: text(c.gotifyserverurl) ?? '', token: secret('gotifyapplicationToken', 'application token') } }];
    case 'pushover':
      return [{ name, type: 'chat', config: { provider: 'pushover', token: secret('pushoverapptoken', 'application token'), user: secret('pushoveruserkey', 'user key') } }];
    case 'PagerDuty':
      if (text(c.pagerdutyIntegrationUrl) && !/^https:\/\/events\.pagerduty\.com\//.test(text(c.pagerdutyIntegrationUrl)!)) report.unmapped(where, 'integration URL: Outpost sends to PagerDuty\'s own events API');
      return [{ name, type: 'pager', config: { provider: 'pagerduty', integration_key: secret('pagerdutyIntegrationKey', 'integration key') } }];
    case 'Opsgenie':
      return [{ name, type: 'pager', config: { provider: 'opsgenie', api_key: secret('opsgenieApiKey', 'api key'), ...(text(c.opsgenieRegion) === 'eu' ? { region: 'eu' } : {}) } }];
    case 'smtp':
      return email(c, name, where, report);
    case 'webhook':
      return webhook(c, name, where, report);
    case 'twilio':
      if (!text(c.twilioToNumber)) return none(report, where, 'no number to send to');
      report.unmapped(where, 'the Twilio account is not imported: Outpost sends SMS through its own gateway settings (SMS_GATEWAY_* of the control plane)');
      return [{ name, type: 'sms', config: { to: text(c.twilioToNumber)! } }];
  }
  return none(report, where, `Outpost has no ${type} channel; the monitors that use it notify their other channels`);
}

/** One e-mail channel per recipient (Outpost's takes one address); the SMTP server is the control plane's. */
function email(c: Row, name: string, where: string, report: ImportReport): Channel[] {
  const recipients = [c.smtpTo, c.smtpCC, c.smtpBCC].flatMap((list) => (text(list) ?? '').split(/[,;]/)).map((a) => a.trim()).filter(Boolean);
  if (recipients.length === 0) return none(report, where, 'no recipient');
  report.unmapped(where, 'the SMTP server, user and password are not imported: Outpost sends e-mail through its own SMTP settings (SMTP_* of the control plane)');
  if (text(c.smtpCC) || text(c.smtpBCC)) report.unmapped(where, 'CC and BCC recipients get channels of their own');
  if (text(c.customSubject) || text(c.customBody)) report.unmapped(where, 'custom subject and body: Kuma\'s template variables differ from Outpost\'s Liquid template (README "Message templates")');
  return recipients.map((to, i) => ({ name: recipients.length === 1 ? name : `${name} ${i + 1}`, type: 'email', config: { to } }));
}

function webhook(c: Row, name: string, where: string, report: ImportReport): Channel[] {
  if (!text(c.webhookURL)) return none(report, where, 'no URL');
  const contentType = text(c.webhookContentType) ?? 'json';
  if (contentType === 'form-data') report.unmapped(where, 'form-data body: Outpost posts JSON');
  if (contentType === 'custom') report.unmapped(where, "custom body: Kuma's template variables differ from Outpost's Liquid template (README \"Message templates\"); Outpost sends its JSON payload");
  const method = (text(c.httpMethod) ?? 'post').toUpperCase();
  if (method !== 'POST' && method !== 'PUT') report.unmapped(where, `method ${method}: Outpost's webhook sends POST or PUT; POST used`);
  const headers: Record<string, string> = {};
  const given = parsedJson(c.webhookAdditionalHeaders);
  for (const [header, raw] of Object.entries(typeof given === 'object' && given !== null ? (given as Row) : {})) {
    const value = String(raw);
    headers[header] = SECRET_HEADER.test(header) ? report.secret(variableName(name, header), value, `the ${header} header of ${where}`) : value;
  }
  // The URL may hold a token (a query parameter, a path): kept out of the file.
  const url = report.secret(variableName(name, 'url'), text(c.webhookURL)!, `the URL of ${where}`);
  return [{ name, type: 'webhook', config: { url, method: method === 'PUT' ? 'PUT' : 'POST', ...(Object.keys(headers).length > 0 ? { headers } : {}) } }];
}

function reportExtras(c: Row, keys: string[], where: string, report: ImportReport): void {
  const set = keys.filter((k) => text(c[k]) !== undefined);
  if (set.length > 0) report.unmapped(where, `${set.join(', ')}: not imported (the webhook's own channel, name and icon are used)`);
}

function none(report: ImportReport, where: string, why: string): Channel[] {
  skip(report, where, why);
  return [];
}
