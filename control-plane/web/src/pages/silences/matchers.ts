// Matchers (of a silence, or of an alert rule's selector) as a form edits them and as a list
// says them in one line: "tags: payments · env: production".
import type { Matchers, MatchersBody } from './silence-types';

/** The form's text for each matcher; lists are typed comma-separated. */
export interface MatcherDraft {
  serviceIds: string[];
  tags: string;
  environment: string;
  locations: string;
  checkTypes: string[];
}

export const EMPTY_MATCHERS: MatcherDraft = { serviceIds: [], tags: '', environment: '', locations: '', checkTypes: [] };

export function draftOfMatchers(m: Matchers | null | undefined): MatcherDraft {
  if (!m) return EMPTY_MATCHERS;
  return {
    serviceIds: m.service_ids ?? [],
    tags: (m.tags ?? []).join(', '),
    environment: m.environment ?? '',
    locations: (m.locations ?? []).join(', '),
    checkTypes: m.check_types ?? [],
  };
}

const listOf = (text: string) => text.split(',').map((t) => t.trim()).filter(Boolean);

/** The matchers the draft names; none at all is sent as {} for the API to refuse at its field. */
export function matchersOf(d: MatcherDraft): MatchersBody {
  const tags = listOf(d.tags);
  const locations = listOf(d.locations);
  return {
    ...(d.serviceIds.length > 0 ? { service_ids: d.serviceIds } : {}),
    ...(tags.length > 0 ? { tags } : {}),
    ...(d.environment.trim() ? { environment: d.environment.trim() } : {}),
    ...(locations.length > 0 ? { locations } : {}),
    ...(d.checkTypes.length > 0 ? { check_types: d.checkTypes as MatchersBody['check_types'] } : {}),
  };
}

/** "services: web, api · tags: payments · env: production · locations: eu-1 · check types: HTTP". */
export function matchersSummary(m: Matchers, serviceName: (id: string) => string): string {
  const parts: string[] = [];
  if (m.service_ids?.length) parts.push(`${m.service_ids.length === 1 ? 'service' : 'services'}: ${m.service_ids.map(serviceName).join(', ')}`);
  if (m.tags?.length) parts.push(`tags: ${m.tags.join(', ')}`);
  if (m.environment) parts.push(`env: ${m.environment}`);
  if (m.locations?.length) parts.push(`${m.locations.length === 1 ? 'location' : 'locations'}: ${m.locations.join(', ')}`);
  if (m.check_types?.length) parts.push(`check types: ${m.check_types.join(', ')}`);
  return parts.join(' · ') || 'nothing';
}
