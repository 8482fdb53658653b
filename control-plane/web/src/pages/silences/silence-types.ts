// Silences as the API answers and takes them, typed from the control plane's own schemas
// (control-plane/src/features/silences/silences.schema.ts); type-only, so nothing of the
// server reaches the bundle.
import type { z } from 'zod';
import type { CreateSilenceInput, ListSilencesQuery, SilenceJson } from '../../../../src/features/silences/silences.schema';

export type Silence = z.infer<typeof SilenceJson>;
export type SilenceState = Silence['state'];
export type SilenceBody = z.input<typeof CreateSilenceInput>;
export type SilenceListState = z.output<typeof ListSilencesQuery>['state'];

/** The matchers of a silence, and of an alert rule's condition.selector: every one given must hold. */
export type Matchers = Silence['matchers'];
/** Matchers as the API takes them (check types from its catalogue). */
export type MatchersBody = SilenceBody['matchers'];

export const SILENCES_PATH = '/silences';
