export interface EscalationStep {
  delay_minutes: number;
  channel_ids: string[];
  /** Absent in policies stored before teams existed. */
  team_ids?: string[];
}

export interface EscalationPolicy {
  id: string;
  organizationId: string;
  name: string;
  steps: EscalationStep[];
  /** false: run the steps once; true: repeat them (at most 10 more rounds); n: n more rounds. */
  repeat: boolean | number;
  createdAt: Date;
  updatedAt: Date;
}

export const MAX_ROUNDS_WHEN_REPEATING = 10;

export function extraRounds(policy: Pick<EscalationPolicy, 'repeat'>): number {
  if (policy.repeat === true) return MAX_ROUNDS_WHEN_REPEATING;
  return policy.repeat === false ? 0 : policy.repeat;
}

export function toPolicyJson(p: EscalationPolicy) {
  return {
    id: p.id,
    organization_id: p.organizationId,
    name: p.name,
    steps: p.steps,
    repeat: p.repeat,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}
