// Which services a silence or a rule covers: matchers over a service's id, tags, environment,
// locations and check type. Every matcher given must hold (tags: all of them; locations and
// check types: any of them); a selector names at least one. Pure, so the evaluator can run
// it for every result of a batch.
import { z } from 'zod';
import { CHECK_TYPES, type CheckType } from '../../../../shared/src/check-types.js';

export interface ServiceSelector {
  service_ids?: string[];
  tags?: string[];
  environment?: string;
  locations?: string[];
  check_types?: CheckType[];
}

/** What a selector reads of a service. */
export interface SelectableService {
  id: string;
  tags: readonly string[];
  environment: string | null;
  locations: readonly string[];
  checkType: string;
}

const list = <T extends z.ZodType>(item: T, what: string) => z.array(item, { message: `${what} must be an array` }).min(1, `${what} must not be empty`).max(1000).transform((v) => [...new Set(v)]);

export const ServiceSelectorSchema = z
  .strictObject({
    service_ids: list(z.uuid({ message: 'each service id must be a UUID' }), 'service_ids').optional(),
    tags: list(z.string({ message: 'each tag must be a string' }).min(1).max(64), 'tags').optional(),
    environment: z.string({ message: 'environment must be a string' }).min(1).max(100).optional(),
    locations: list(z.string({ message: 'each location must be a string' }).min(1).max(64), 'locations').optional(),
    check_types: list(z.enum(CHECK_TYPES as [CheckType, ...CheckType[]], { message: `each check type must be one of ${CHECK_TYPES.join(', ')}` }), 'check_types').optional(),
  }, { message: 'must be an object of service_ids, tags, environment, locations or check_types' })
  .refine((s) => Object.values(s).some((v) => v !== undefined), 'must name at least one of service_ids, tags, environment, locations or check_types');

export type ServiceMatcher = (service: SelectableService) => boolean;

const compiled = new WeakMap<ServiceSelector, ServiceMatcher>();

/** The selector as a predicate, made once per selector object (rules are cached, so once per rule). */
export function matcherOf(selector: ServiceSelector): ServiceMatcher {
  let matcher = compiled.get(selector);
  if (!matcher) {
    matcher = compile(selector);
    compiled.set(selector, matcher);
  }
  return matcher;
}

function compile({ service_ids, tags, environment, locations, check_types }: ServiceSelector): ServiceMatcher {
  const ids = service_ids && new Set(service_ids);
  const where = locations && new Set(locations);
  const types = check_types && new Set<string>(check_types);
  return (s) =>
    (!ids || ids.has(s.id)) &&
    (environment === undefined || s.environment === environment) &&
    (!types || types.has(s.checkType)) &&
    (!tags || tags.every((t) => s.tags.includes(t))) &&
    (!where || s.locations.some((l) => where.has(l)));
}
