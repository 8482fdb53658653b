// The actions of POST /api/v1/services/bulk and what each can answer for a service: one list
// for the control plane's schema, the dashboard and the CLI.

/** Service ids one request may name at most. */
export const MAX_BULK_IDS = 1000;

export const BULK_ACTIONS = ['pause', 'resume', 'delete', 'add_tags', 'remove_tags', 'set_locations', 'check'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

/** What was done to one service; `skipped` comes with the reason. */
export const BULK_OUTCOMES = ['paused', 'resumed', 'updated', 'deleted', 'queued', 'unchanged', 'skipped', 'not_found'] as const;
export type BulkOutcome = (typeof BULK_OUTCOMES)[number];
