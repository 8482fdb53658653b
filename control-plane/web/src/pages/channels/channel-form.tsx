// Create or edit a notification channel: the config fields change with the type. Secrets come
// back masked ("****abcd"); sending the mask unchanged keeps the stored secret.
import { useState, type FormEvent } from 'react';
import { useSaveResource } from '../../api/resources';
import { CheckboxField, SelectField, TextAreaField, TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';
import { CHANNEL_TYPES, type Channel, type ChannelType } from './channel-types';
import { FormActions } from '../../ui/form-actions';

interface Draft {
  name: string;
  type: ChannelType;
  enabled: boolean;
  webhook_url: string;
  url: string;
  method: string;
  headers: string;
  secret: string;
  integration_key: string;
  to: string;
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

function draftOf(channel: Channel | undefined): Draft {
  const c = channel?.config ?? {};
  const headers = c.headers && typeof c.headers === 'object' ? Object.entries(c.headers as Record<string, string>).map(([k, v]) => `${k}: ${v}`).join('\n') : '';
  return {
    name: channel?.name ?? '',
    type: channel?.channel_type ?? 'webhook',
    enabled: channel?.enabled ?? true,
    webhook_url: text(c.webhook_url),
    url: text(c.url),
    method: text(c.method),
    headers,
    secret: text(c.secret),
    integration_key: text(c.integration_key),
    to: text(c.to),
  };
}

/** "Name: value" per line; a line without a colon is answered here, the rest by the API. */
function parseHeaders(lines: string): { headers?: Record<string, string>; problem?: string } {
  const headers: Record<string, string> = {};
  for (const line of lines.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const colon = line.indexOf(':');
    if (colon <= 0) return { problem: `"${line}" is not "Name: value"` };
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return Object.keys(headers).length ? { headers } : {};
}

function configOf(d: Draft, headers: Record<string, string> | undefined): Record<string, unknown> {
  switch (d.type) {
    case 'chat':
      return { webhook_url: d.webhook_url.trim() };
    case 'webhook':
      return { url: d.url.trim(), ...(d.method ? { method: d.method } : {}), ...(headers ? { headers } : {}), ...(d.secret ? { secret: d.secret } : {}) };
    case 'pager':
      return { integration_key: d.integration_key.trim() };
    case 'email':
    case 'sms':
      return { to: d.to.trim() };
  }
}

const SHOWN_PATHS = ['name', 'channel_type', 'enabled', 'config.webhook_url', 'config.url', 'config.method', 'config.headers', 'config.secret', 'config.integration_key', 'config.to'];

export function ChannelForm({ channel, onDone }: { channel?: Channel; onDone(): void }) {
  const [draft, setDraft] = useState(() => draftOf(channel));
  const [headersProblem, setHeadersProblem] = useState<string>();
  const save = useSaveResource<Channel>('/notification-channels');
  const errors = formErrors(save.error);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = draft.type === 'webhook' ? parseHeaders(draft.headers) : {};
    setHeadersProblem(parsed.problem);
    if (parsed.problem) return;
    const config = configOf(draft, parsed.headers);
    const body = channel ? { name: draft.name, config, enabled: draft.enabled } : { name: draft.name, channel_type: draft.type, config, enabled: draft.enabled };
    save.mutate({ id: channel?.id, body }, { onSuccess: onDone });
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(SHOWN_PATHS)} />
      <TextField label="Name" value={draft.name} onChange={(e) => set('name', e.target.value)} error={errors.field('name')} required autoFocus />
      <SelectField
        label="Type"
        value={draft.type}
        onChange={(e) => set('type', e.target.value as ChannelType)}
        error={errors.field('channel_type')}
        disabled={Boolean(channel)}
        hint={channel ? 'The type of a channel cannot change; create another channel instead.' : undefined}
      >
        {CHANNEL_TYPES.map((t) => (
          <option key={t.value} value={t.value}>
            {t.label}
          </option>
        ))}
      </SelectField>
      {draft.type === 'chat' && (
        <TextField label="Webhook URL" type="url" value={draft.webhook_url} onChange={(e) => set('webhook_url', e.target.value)} error={errors.field('config.webhook_url')} hint="The incoming-webhook URL of the chat room; messages are posted as {&quot;text&quot;: ...}." required />
      )}
      {draft.type === 'webhook' && (
        <>
          <TextField label="URL" type="url" value={draft.url} onChange={(e) => set('url', e.target.value)} error={errors.field('config.url')} hint="Receives the alert as JSON." required />
          <SelectField label="Method" value={draft.method} onChange={(e) => set('method', e.target.value)} error={errors.field('config.method')}>
            <option value="">POST (default)</option>
            <option value="POST">POST</option>
            <option value="PUT">PUT</option>
          </SelectField>
          <TextAreaField label="Headers" value={draft.headers} onChange={(e) => set('headers', e.target.value)} error={headersProblem ?? errors.field('config.headers')} hint="One per line, as Name: value." rows={3} />
          <TextField label="Signing secret" value={draft.secret} onChange={(e) => set('secret', e.target.value)} error={errors.field('config.secret')} hint="Optional: each request is signed with it. Leave the masked value to keep the stored secret." autoComplete="off" />
        </>
      )}
      {draft.type === 'pager' && (
        <TextField label="Integration key" value={draft.integration_key} onChange={(e) => set('integration_key', e.target.value)} error={errors.field('config.integration_key')} hint="The routing key of the pager service (Events API v2). Leave the masked value to keep the stored key." autoComplete="off" required />
      )}
      {draft.type === 'email' && <TextField label="To (email address)" type="email" value={draft.to} onChange={(e) => set('to', e.target.value)} error={errors.field('config.to')} required />}
      {draft.type === 'sms' && <TextField label="To (phone number)" type="tel" value={draft.to} onChange={(e) => set('to', e.target.value)} error={errors.field('config.to')} hint="In international form, e.g. +15555550100." required />}
      <CheckboxField label="Enabled" checked={draft.enabled} onChange={(e) => set('enabled', e.target.checked)} error={errors.field('enabled')} />
      <FormActions onCancel={onDone} busy={save.isPending} submitLabel={channel ? 'Save' : 'Create channel'} />
    </form>
  );
}
