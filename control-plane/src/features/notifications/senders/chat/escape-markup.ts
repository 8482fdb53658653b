// Slack's mrkdwn, Telegram's HTML mode and Google Chat's card text all treat &, < and > as
// markup: alert text is escaped so that it shows as written and cannot inject links or tags.
export const escapeMarkup = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
