// Message templates of notification channels (config.template), as the control plane, the
// dashboard and the CLI all see them: which types take one, its shape and length, and the
// answer of POST /notification-channels/preview.
export const MAX_TEMPLATE_LENGTH = 4_000;

/** Pager incidents keep their fixed shape: they take no template. */
export const TEMPLATE_CHANNEL_TYPES = ['chat', 'sms', 'email', 'webhook'] as const;
export type TemplateChannelType = (typeof TEMPLATE_CHANNEL_TYPES)[number];

/** The message text; e-mail also takes {subject, body}, each optional. */
export type ChannelTemplate = string | { subject?: string; body?: string };

export interface TemplatePreviewRequest {
  channel_type: TemplateChannelType;
  /** Left out: the preview shows the default message. */
  template?: ChannelTemplate;
  event?: string;
}

export interface TemplatePreview {
  channel_type: string;
  event: string;
  /** chat: the message text; sms: the text as sent (one segment); webhook: the body's "text"; null for email. */
  text: string | null;
  /** email only. */
  subject: string | null;
  /** email only: the plain-text body. */
  body: string | null;
  /** The sample variables the template was rendered with. */
  variables: Record<string, unknown>;
}
