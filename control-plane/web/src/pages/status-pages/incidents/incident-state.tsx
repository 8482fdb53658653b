// An incident's status and impact in words, colour as a second cue.
import { IMPACT_TEXT, STATUS_TEXT, type Impact, type IncidentStatus } from './incident-types';

export function IncidentState({ status }: { status: IncidentStatus }) {
  return <span className={`incident-state incident-state-${status}`}>{STATUS_TEXT[status]}</span>;
}

export function impactText(impact: Impact): string {
  return impact === 'none' ? IMPACT_TEXT.none : `${IMPACT_TEXT[impact]} impact`;
}
