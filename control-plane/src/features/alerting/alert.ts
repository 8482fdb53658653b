import type { Severity } from './rule.js';

export type AlertStatus = 'firing' | 'acknowledged' | 'resolved';

/**
 * What an alert is about: a service's status (by a rule), a service that stopped getting
 * results (`no_data`), an agent that went silent, or a location whose every agent did.
 */
export type AlertKind = 'service' | 'no_data' | 'agent_offline' | 'location_offline';

export interface Alert {
  id: string;
  organizationId: string;
  kind: AlertKind;
  /** null for an agent's or a location's alert. */
  serviceId: string | null;
  /** The service's name, or the agent's or location's for their alerts. */
  serviceName: string;
  /** null for an agent's or location's alert that no rule asked for (every channel hears it). */
  alertRuleId: string | null;
  /** The silent agent (agent_offline). */
  agentId: string | null;
  /** The agent's or dark location's name (agent_offline, location_offline). */
  location: string | null;
  severity: Severity;
  title: string;
  message: string;
  status: AlertStatus;
  /** The silence keeping it quiet: it is open but notifies nobody. */
  silencedBy: string | null;
  /** When its channels next hear it is still firing (the rule's repeat_interval_minutes); not part of its JSON. */
  remindAt: Date | null;
  firedAt: Date;
  lastFiredAt: Date;
  acknowledgedAt: Date | null;
  acknowledgedBy: string | null;
  resolvedAt: Date | null;
  resolvedBy: string | null;
  updatedAt: Date;
}

export function toAlertJson(a: Alert) {
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    id: a.id,
    organization_id: a.organizationId,
    kind: a.kind,
    service_id: a.serviceId,
    service_name: a.serviceName,
    alert_rule_id: a.alertRuleId,
    agent_id: a.agentId,
    location: a.location,
    severity: a.severity,
    title: a.title,
    message: a.message,
    status: a.status,
    silenced_by: a.silencedBy,
    fired_at: a.firedAt.toISOString(),
    last_fired_at: a.lastFiredAt.toISOString(),
    acknowledged_at: iso(a.acknowledgedAt),
    acknowledged_by: a.acknowledgedBy,
    resolved_at: iso(a.resolvedAt),
    resolved_by: a.resolvedBy,
    updated_at: a.updatedAt.toISOString(),
  };
}

export type AlertJson = ReturnType<typeof toAlertJson>;
