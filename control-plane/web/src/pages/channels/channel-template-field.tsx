// The message template of a channel (config.template, Liquid): one text for chat, SMS and
// webhooks, a subject and a body for e-mail; Preview renders it with a sample alert through
// POST /notification-channels/preview and shows what the channel would send.
import { useMutation } from '@tanstack/react-query';
import { api } from '../../api/http';
import { TextAreaField, TextField } from '../../ui/field';
import { TEMPLATE_CHANNEL_TYPES, type ChannelTemplate, type TemplatePreview, type TemplatePreviewRequest } from '../../../../../shared/src/channel-templates.js';
import type { ChannelType } from './channel-types';

/** The template as the form edits it; for e-mail `text` is the body. */
export interface TemplateDraft {
  text: string;
  subject: string;
}

export function templateDraftOf(template: unknown): TemplateDraft {
  if (typeof template === 'string') return { text: template, subject: '' };
  if (template && typeof template === 'object') {
    const t = template as Record<string, unknown>;
    return { text: typeof t.body === 'string' ? t.body : '', subject: typeof t.subject === 'string' ? t.subject : '' };
  }
  return { text: '', subject: '' };
}

/** config.template for the type, or undefined: blank fields leave the default message. */
export function templateOf(type: ChannelType, d: TemplateDraft): ChannelTemplate | undefined {
  if (!takesTemplate(type)) return undefined;
  const text = d.text.trim() ? d.text : undefined;
  if (type !== 'email' || !d.subject.trim()) return text;
  return { subject: d.subject, ...(text ? { body: text } : {}) };
}

export const takesTemplate = (type: ChannelType) => (TEMPLATE_CHANNEL_TYPES as readonly string[]).includes(type);

/** What the template becomes in a message of this type. */
const WHERE: Partial<Record<ChannelType, string>> = {
  chat: 'The message text (a provider\'s card keeps its heading and button).',
  sms: 'The text message, cut to 160 characters.',
  email: 'The e-mail body.',
  webhook: 'The "text" field of the JSON body; the other fields stay as they are.',
};

const hint = (type: ChannelType) => (
  <>
    {WHERE[type]} Optional, in Liquid: e.g. <code>{'{{ alert.title }} on {{ service.name }} for {{ alert.firing_for }}: {{ links.service }}'}</code>. Variables: event,
    alert, service, location, locations, links, organization, text (the default message). Left empty, the default message is sent.
  </>
);

interface ChannelTemplateFieldProps {
  type: ChannelType;
  draft: TemplateDraft;
  onChange(draft: TemplateDraft): void;
  error(path: string): string | undefined;
}

export function ChannelTemplateField({ type, draft, onChange, error }: ChannelTemplateFieldProps) {
  const preview = useMutation({
    mutationFn: (body: TemplatePreviewRequest) => api.post<TemplatePreview>('/notification-channels/preview', body),
  });
  if (!takesTemplate(type)) return null;
  const email = type === 'email';
  // A preview answers the template it was asked about: an edit clears it.
  const change = (next: TemplateDraft) => {
    preview.reset();
    onChange(next);
  };
  const run = () => preview.mutate({ channel_type: type as TemplatePreviewRequest['channel_type'], template: templateOf(type, draft) });
  return (
    <fieldset className="channel-template">
      <legend>Message</legend>
      {email && (
        <TextField
          label="Subject template"
          value={draft.subject}
          onChange={(e) => change({ ...draft, subject: e.target.value })}
          error={error('config.template.subject')}
          hint="Optional: left empty, the subject is the alert's one-line summary."
        />
      )}
      <TextAreaField
        label={email ? 'Body template' : 'Template'}
        value={draft.text}
        onChange={(e) => change({ ...draft, text: e.target.value })}
        error={error(email ? 'config.template.body' : 'config.template')}
        hint={hint(type)}
        rows={4}
        spellCheck={false}
      />
      <div className="template-preview-actions">
        <button type="button" onClick={run} disabled={preview.isPending}>
          Preview
        </button>
      </div>
      {preview.isError && (
        <p role="alert" className="field-error">
          {preview.error.message}
        </p>
      )}
      {preview.isSuccess && <PreviewOutput preview={preview.data} />}
    </fieldset>
  );
}

function PreviewOutput({ preview }: { preview: TemplatePreview }) {
  return (
    <section aria-label="Preview" className="template-preview">
      <p className="muted">With a sample alert (checkout-api failing for 12 minutes), this channel would send:</p>
      {preview.subject !== null && (
        <p>
          <strong>Subject:</strong> <span className="template-preview-subject">{preview.subject}</span>
        </p>
      )}
      <pre className="template-preview-text">{preview.body ?? preview.text}</pre>
    </section>
  );
}
