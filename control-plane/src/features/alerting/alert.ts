import type { Severity } from './rule.js';

export type AlertStatus = 'firing' | 'acknowledged' | 'resolved';

export interface Alert {
  id: string;
  organizationId: string;
  serviceId: string;
  serviceName: string;
  alertRuleId: string;
  severity: Severity;
  title: string;
  message: string;
  status: AlertStatus;
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
    service_id: a.serviceId,
    service_name: a.serviceName,
    alert_rule_id: a.alertRuleId,
    severity: a.severity,
    title: a.title,
    message: a.message,
    status: a.status,
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
