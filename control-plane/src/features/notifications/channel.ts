import type { ChannelType } from './channels.schema.js';

export interface Channel {
  id: string;
  organizationId: string;
  name: string;
  channelType: ChannelType;
  /** As stored: secret values sealed. */
  config: Record<string, unknown>;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}
