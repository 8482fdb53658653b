// Create or edit a notification channel: the config fields change with the type, and for chat
// and pager with the provider. Secrets come back masked ("****abcd"); sending the mask
// unchanged keeps the stored secret.
import { useState, type FormEvent } from 'react';
import { useSaveResource } from '../../api/resources';
import { CheckboxField, SelectField, TextAreaField, TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';
import { CHANNEL_TYPES, type Channel, type ChannelType } from './channel-types';
import { FormActions } from '../../ui/form-actions';
import { providersOf, type Provider } from './channel-providers';
import { ChannelTemplateField, templateDraftOf, templateOf, type TemplateDraft } from './channel-template-field';

interface Draft {
  name: string;
  type: ChannelType;
  enabled: boolean;
  /** Chat and pager: '' for the type's original format. */
  provider: string;
  /** Chat and pager: the provider's fields, by config key. */
  values: Record<string, string>;
  url: string;
  method: string;
  headers: string;
  secret: string;
  to: string;
  template: TemplateDraft;
}

const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');

function draftOf(channel: Channel | undefined): Draft {
  const c = channel?.config ?? {};
  const headers = c.headers && typeof c.headers === 'object' ? Object.entries(c.headers as Record<string, string>).map(([k, v]) => `${k}: ${v}`).join('\n') : '';
  return {
    name: channel?.name ?? '',
    type: channel?.channel_type ?? 'webhook',
    enabled: channel?.enabled ?? true,
    // A pager naming PagerDuty is the same as one naming no provider.
    provider: c.provider === 'pagerduty' ? '' : text(c.provider),
    values: Object.fromEntries(Object.entries(c).filter(([key]) => key !== 'provider' && key !== 'template').map(([key, value]) => [key, text(value)])),
    url: text(c.url),
    method: text(c.method),
    headers,
    secret: text(c.secret),
    to: text(c.to),
    template: templateDraftOf(c.template),
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

function providerConfig(d: Draft, provider: Provider): Record<string, unknown> {
  const config: Record<string, unknown> = d.provider ? { provider: d.provider } : {};
  for (const field of provider.fields) {
    const value = (d.values[field.key] ?? '').trim();
    if (value || !field.optional) config[field.key] = value;
  }
  return config;
}

function configOf(d: Draft, headers: Record<string, string> | undefined): Record<string, unknown> {
  const template = templateOf(d.type, d.template);
  return { ...typeConfigOf(d, headers), ...(template !== undefined ? { template } : {}) };
}

function typeConfigOf(d: Draft, headers: Record<string, string> | undefined): Record<string, unknown> {
  switch (d.type) {
    case 'chat':
    case 'pager':
      return providerConfig(d, selectedProvider(d));
    case 'webhook':
      return { url: d.url.trim(), ...(d.method ? { method: d.method } : {}), ...(headers ? { headers } : {}), ...(d.secret ? { secret: d.secret } : {}) };
    case 'email':
    case 'sms':
      return { to: d.to.trim() };
  }
}

function selectedProvider(d: Draft): Provider {
  const providers = providersOf(d.type) ?? [];
  return providers.find((p) => p.value === d.provider) ?? providers[0]!;
}

const SHOWN_PATHS = ['name', 'channel_type', 'enabled', 'config.url', 'config.method', 'config.headers', 'config.secret', 'config.to', 'config.template'];

export function ChannelForm({ channel, onDone }: { channel?: Channel; onDone(): void }) {
  const [draft, setDraft] = useState(() => draftOf(channel));
  const [headersProblem, setHeadersProblem] = useState<string>();
  const save = useSaveResource<Channel>('/notification-channels');
  const errors = formErrors(save.error);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  // Another provider starts empty: its keys (and secrets) are not the old provider's.
  const changeProvider = (value: string) => {
    const original = draftOf(channel);
    setDraft((d) => ({ ...d, provider: value, values: channel && value === original.provider ? original.values : {} }));
  };
  const providers = providersOf(draft.type);
  const provider = providers ? selectedProvider(draft) : undefined;
  const shown = [...SHOWN_PATHS, ...(provider ? ['config.provider', ...provider.fields.map((f) => `config.${f.key}`)] : [])];

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
      <FormProblems messages={errors.summary(shown)} />
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
      {providers && provider && (
        <>
          <SelectField label="Provider" value={draft.provider} onChange={(e) => changeProvider(e.target.value)} error={errors.field('config.provider')}>
            {providers.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </SelectField>
          {provider.fields.map((field) => {
            const props = {
              label: field.label,
              value: draft.values[field.key] ?? '',
              onChange: (e: { target: { value: string } }) => set('values', { ...draft.values, [field.key]: e.target.value }),
              error: errors.field(`config.${field.key}`),
              hint: field.hint,
            };
            return field.options ? (
              <SelectField key={field.key} {...props}>
                {field.options.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </SelectField>
            ) : (
              <TextField key={field.key} {...props} type={field.type ?? 'text'} autoComplete={field.secret ? 'off' : undefined} required={!field.optional} />
            );
          })}
        </>
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
      {draft.type === 'email' && <TextField label="To (email address)" type="email" value={draft.to} onChange={(e) => set('to', e.target.value)} error={errors.field('config.to')} required />}
      {draft.type === 'sms' && <TextField label="To (phone number)" type="tel" value={draft.to} onChange={(e) => set('to', e.target.value)} error={errors.field('config.to')} hint="In international form, e.g. +15555550100." required />}
      <ChannelTemplateField type={draft.type} draft={draft.template} onChange={(t) => set('template', t)} error={errors.field} />
      <CheckboxField label="Enabled" checked={draft.enabled} onChange={(e) => set('enabled', e.target.checked)} error={errors.field('enabled')} />
      <FormActions onCancel={onDone} busy={save.isPending} submitLabel={channel ? 'Save' : 'Create channel'} />
    </form>
  );
}
