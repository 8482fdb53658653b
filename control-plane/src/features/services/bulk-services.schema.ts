// Request and answer of POST /services/bulk: one action on up to MAX_BULK_IDS services at once.
import { z } from 'zod';
import { BULK_ACTIONS, BULK_OUTCOMES, MAX_BULK_IDS, type BulkAction, type BulkOutcome } from '../../../../shared/src/bulk-actions.js';
import { fields } from './services.schema.js';

export { BULK_OUTCOMES, MAX_BULK_IDS, type BulkAction, type BulkOutcome };

/** Which actions take which extra field: any other action refuses it. */
const NEEDS: Record<BulkAction, 'tags' | 'locations' | null> = {
  pause: null,
  resume: null,
  delete: null,
  add_tags: 'tags',
  remove_tags: 'tags',
  set_locations: 'locations',
  check: null,
};

export const BulkServicesInput = z
  .strictObject({
    organization_id: fields.organization_id.meta({ description: 'The organization the ids belong to; the token\'s by default' }),
    ids: z
      .array(z.uuid({ message: 'each id must be a UUID' }), { message: 'ids must be an array of service ids' })
      .min(1, 'ids must name at least one service')
      .max(MAX_BULK_IDS, `ids names at most ${MAX_BULK_IDS} services`)
      .meta({ description: `1 to ${MAX_BULK_IDS} service ids; a repeated id counts once` }),
    action: z.enum(BULK_ACTIONS, { message: `action must be one of ${BULK_ACTIONS.join(', ')}` }),
    tags: fields.tags.meta({ description: 'For add_tags and remove_tags (at least one)' }).optional(),
    locations: fields.locations.meta({ description: 'For set_locations: the new locations of every service, as for an update' }).optional(),
  })
  .superRefine((input, ctx) => {
    const needed = NEEDS[input.action];
    for (const field of ['tags', 'locations'] as const) {
      if (field === needed && (input[field] === undefined || input[field].length === 0)) {
        ctx.addIssue({ code: 'custom', path: [field], message: `${input.action} needs ${field}: at least one` });
      } else if (field !== needed && input[field] !== undefined) {
        ctx.addIssue({ code: 'custom', path: [field], message: `${input.action} takes no ${field}` });
      }
    }
  });
export type BulkServicesInput = z.infer<typeof BulkServicesInput>;

export interface BulkResult {
  id: string;
  outcome: BulkOutcome;
  reason?: string;
}

export interface BulkAnswer {
  action: BulkAction;
  results: BulkResult[];
  counts: Record<BulkOutcome, number>;
}

export const BulkServicesJson = z
  .object({
    action: z.enum(BULK_ACTIONS),
    results: z
      .array(z.object({ id: z.uuid(), outcome: z.enum(BULK_OUTCOMES), reason: z.string().optional().meta({ description: 'Why a service was skipped' }) }))
      .meta({ description: 'One per distinct id, in the order given' }),
    counts: z
      .object(Object.fromEntries(BULK_OUTCOMES.map((o) => [o, z.int()])) as Record<BulkOutcome, z.ZodInt>)
      .meta({ description: 'How many services had each outcome (every outcome named, 0 when none)' }),
  })
  .meta({ id: 'BulkServicesResult' });

export function toBulkServicesJson(answer: BulkAnswer): z.infer<typeof BulkServicesJson> {
  return { action: answer.action, results: answer.results.map((r) => (r.reason === undefined ? { id: r.id, outcome: r.outcome } : r)), counts: answer.counts };
}
