// POST /services/bulk: one action on many services of one organization, in one transaction,
// with an outcome per id. Ids of other organizations and unknown ids are `not_found`, and
// nothing is done to them, so the answer reveals nothing about them.
import { internalKind } from '../../../../shared/src/check-types.js';
import { validationFailed } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import { BULK_OUTCOMES, type BulkAnswer, type BulkOutcome, type BulkResult, type BulkServicesInput } from './bulk-services.schema.js';
import type { ServiceRecord } from './service.entity.js';
import type { ServiceChangePlan, ServicesRepository, ServiceUpdate } from './services.repository.js';
import type { ServiceChangeListener } from './services.service.js';

/** As for one service (services.schema.ts). */
const MAX_TAGS = 50;

export interface BulkServicesDeps {
  services: ServicesRepository;
  access: OrganizationAccess;
  listener: ServiceChangeListener;
}

/** What the action does to each service found, and the statements' worth of changes. */
interface BulkPlan extends ServiceChangePlan {
  outcomes: Map<string, Omit<BulkResult, 'id'>>;
}

export function createBulkServices({ services, access, listener }: BulkServicesDeps) {
  return async function bulk(actor: Actor, input: BulkServicesInput): Promise<BulkAnswer> {
    const organizationId = await access.resolveWritable(actor, input.organization_id);
    const ids = [...new Set(input.ids)];
    let plan: BulkPlan | undefined;
    if (input.action === 'check') {
      const found = await services.findMany(organizationId, ids);
      plan = planBulk(input, found);
      listener.servicesRunNow(found.filter((s) => plan!.outcomes.get(s.id)?.outcome === 'queued'));
    } else {
      const changed = await services.changeMany(organizationId, ids, (found) => (plan = planBulk(input, found)));
      // After the commit, as for one service: agents drop paused and deleted services, take
      // resumed ones, and move to new locations.
      const bumped = new Set(plan!.updates.filter((u) => u.bumpVersion).map((u) => u.id));
      listener.servicesUpserted(changed.updated.filter((s) => bumped.has(s.id)));
      listener.servicesRemoved(changed.deleted);
    }
    return answerOf(input, ids, plan!);
  };
}

function answerOf(input: BulkServicesInput, ids: string[], plan: BulkPlan): BulkAnswer {
  const counts = Object.fromEntries(BULK_OUTCOMES.map((o) => [o, 0])) as Record<BulkOutcome, number>;
  const results = ids.map((id): BulkResult => {
    const result = plan.outcomes.get(id) ?? { outcome: 'not_found' };
    counts[result.outcome] += 1;
    return { id, ...result };
  });
  return { action: input.action, results, counts };
}

/** The outcome for each service found and the changes that make it; throws (400) to change nothing. */
export function planBulk(input: BulkServicesInput, found: ServiceRecord[]): BulkPlan {
  const plan: BulkPlan = { outcomes: new Map(), updates: [], deletes: [] };
  const update = (service: ServiceRecord, outcome: BulkOutcome, change: Omit<ServiceUpdate, 'id'>) => {
    plan.updates.push({ id: service.id, ...change });
    plan.outcomes.set(service.id, { outcome });
  };
  for (const service of found) {
    const skipped = skipReason(input, service);
    if (skipped) {
      plan.outcomes.set(service.id, { outcome: 'skipped', reason: skipped });
      continue;
    }
    switch (input.action) {
      case 'pause':
      case 'resume': {
        const paused = input.action === 'pause';
        if (service.paused === paused) plan.outcomes.set(service.id, { outcome: 'unchanged' });
        else update(service, paused ? 'paused' : 'resumed', { paused, bumpVersion: true });
        break;
      }
      case 'delete':
        plan.deletes.push(service.id);
        plan.outcomes.set(service.id, { outcome: 'deleted' });
        break;
      case 'add_tags':
      case 'remove_tags': {
        const tags = input.action === 'add_tags' ? [...new Set([...service.tags, ...input.tags!])] : service.tags.filter((t) => !input.tags!.includes(t));
        if (tags.length > MAX_TAGS) {
          throw validationFailed(`service "${service.name}" would have more than ${MAX_TAGS} tags; nothing was changed`, [{ path: 'tags', message: `at most ${MAX_TAGS} tags a service` }]);
        }
        if (tags.length === service.tags.length && tags.every((t, i) => t === service.tags[i])) plan.outcomes.set(service.id, { outcome: 'unchanged' });
        // Tags are not part of an assignment: agents need not hear about them.
        else update(service, 'updated', { tags, bumpVersion: false });
        break;
      }
      case 'set_locations':
        // Compared as an update compares them: the same list in the same order changes nothing.
        if (JSON.stringify(service.locations) === JSON.stringify(input.locations)) plan.outcomes.set(service.id, { outcome: 'unchanged' });
        else update(service, 'updated', { locations: input.locations!, bumpVersion: true });
        break;
      case 'check':
        plan.outcomes.set(service.id, { outcome: 'queued' });
        break;
    }
  }
  return plan;
}

/** Why the action does not apply to this service, if it does not. */
function skipReason(input: BulkServicesInput, service: ServiceRecord): string | undefined {
  const internal = internalKind(service.checkType);
  // Deleting works as DELETE /services/{id} does, for every kind of service.
  if (input.action === 'delete') return undefined;
  if (input.action === 'check') {
    if (service.paused) return 'the service is paused: resume it to check it';
    if (service.locations.length === 0) return `this service is ${internal?.what ?? 'checked from no location'}: nothing checks it on demand`;
    return undefined;
  }
  // Changes refused by PUT /services/{id} are skipped here for the same reason.
  return internal && `this service is ${internal.what}: change it through ${internal.managedThrough}`;
}
