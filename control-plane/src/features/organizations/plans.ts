// Plans are data: what each allows. Unknown plans fall back to the free plan's limits.
export interface Plan {
  maxServices: number | null;
}

export const PLANS: Record<string, Plan> = {
  free: { maxServices: 5 },
  unlimited: { maxServices: null },
};

/** Own names only: "__proto__" or "toString" is no plan. */
export function isPlan(name: string): boolean {
  return Object.hasOwn(PLANS, name);
}

export function planLimits(plan: string): Plan {
  return isPlan(plan) ? PLANS[plan]! : PLANS.free!;
}
