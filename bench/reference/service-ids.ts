/** The id of the i-th benchmark service: the same in the agent's assignments and the bare loop. */
export function serviceId(i: number): string {
  return `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
}
