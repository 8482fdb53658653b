// Status pages as the API answers and takes them, typed from the control plane's own schemas
// (control-plane/src/features/status-pages/status-pages.schema.ts); type-only, so nothing of
// the server reaches the bundle.
import type { z } from 'zod';
import type { CreateStatusPageInput, StatusPageJson } from '../../../../src/features/status-pages/status-pages.schema';

export type StatusPage = z.infer<typeof StatusPageJson>;
export type StatusPageBody = z.input<typeof CreateStatusPageInput>;
export type PageAccess = StatusPage['access'];
export type ServiceGroup = StatusPage['groups'][number];

export const STATUS_PAGES_PATH = '/status-pages';

export const ACCESS_TEXT: Record<PageAccess, string> = {
  public: 'Public',
  password: 'Password',
  members: 'Members only',
  ip_allowlist: 'IP allowlist',
};
