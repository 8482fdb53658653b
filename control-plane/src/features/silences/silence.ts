// Silences (Alertmanager's word): while one covers a service, its alerts open and show as
// silenced, but notify nobody; when it ends, those still firing notify then. Pure.
import { matcherOf, type SelectableService, type ServiceSelector } from '../services/service-selector.js';

export interface Silence {
  id: string;
  organizationId: string;
  matchers: ServiceSelector;
  startsAt: Date;
  endsAt: Date;
  comment: string;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type SilenceState = 'pending' | 'active' | 'expired';

export function stateAt(s: Pick<Silence, 'startsAt' | 'endsAt'>, at: Date): SilenceState {
  if (at < s.startsAt) return 'pending';
  return at < s.endsAt ? 'active' : 'expired';
}

/** The silence covering the service among those active, the earliest made first; undefined when none does. */
export function coveringSilence(active: readonly Silence[], service: SelectableService): Silence | undefined {
  return active.find((s) => matcherOf(s.matchers)(service));
}

/** When the silence must next be applied to its alerts: its start, its end, or never again. */
export function nextBoundary(s: Pick<Silence, 'startsAt' | 'endsAt'>, at: Date): Date | null {
  if (at < s.startsAt) return s.startsAt;
  return at < s.endsAt ? s.endsAt : null;
}
