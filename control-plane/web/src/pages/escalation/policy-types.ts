// Escalation policies as the API answers them (control-plane/src/features/escalation/policy.ts).
export interface EscalationStep {
  delay_minutes: number;
  channel_ids: string[];
  /** Absent in policies stored before teams existed. */
  team_ids?: string[];
}

export interface EscalationPolicy {
  id: string;
  organization_id: string;
  name: string;
  steps: EscalationStep[];
  /** false: the steps run once; true: up to 10 more rounds; n: n more rounds. */
  repeat: boolean | number;
  created_at: string;
  updated_at: string;
}

export interface Team {
  id: string;
  name: string;
}
