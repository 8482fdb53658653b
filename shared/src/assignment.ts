/** One service an agent must check, as the control plane hands it out and the agent holds it. */
export interface Assignment {
  serviceId: string;
  /** Grows with every change of the service's check; older versions are ignored. */
  version: number;
  checkType: string;
  endpoint: string;
  intervalSeconds: number;
  timeoutSeconds: number;
  options: Record<string, unknown>;
}
