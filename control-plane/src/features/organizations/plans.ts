// Plans are data: what each allows. Unknown plans fall back to the free plan's limits.
export interface Plan {
  maxServices: number | null;
}

export const PLANS: Record<string, Plan> = {
  free: { maxServices: 5 },
  unlimited: { maxServices: null },
};

export function planLimits(plan: string): Plan {
  return PLANS[plan] ?? PLANS.free!;
}
