// Every operation under /api/v1, feature by feature: the source of the OpenAPI document.
// test/control-plane/openapi-drift.test.ts fails when this and the routes of app.ts disagree.
import { backupOperations } from './features/backup/backup.routes.js';
import { agentsOperations } from './features/agents/agents.routes.js';
import { alertsOperations } from './features/alerting/alerts.routes.js';
import { rulesOperations } from './features/alerting/rules.routes.js';
import { apiKeysOperations } from './features/api-keys/api-keys.routes.js';
import { authOperations } from './features/auth/auth.routes.js';
import { profileOperations } from './features/auth/profile.routes.js';
import { sessionsOperations } from './features/sessions/sessions.routes.js';
import { mfaSignInOperations } from './features/second-factors/mfa-sign-in.routes.js';
import { organizationSecurityOperations } from './features/second-factors/organization-security.routes.js';
import { secondFactorsOperations } from './features/second-factors/second-factors.routes.js';
import { historyOperations } from './features/checks/history.routes.js';
import { escalationOperations } from './features/escalation/escalation.routes.js';
import { healthOperations } from './features/health/health.routes.js';
import { heartbeatsOperations } from './features/heartbeats/heartbeats.routes.js';
import { maintenanceOperations } from './features/maintenance/maintenance.routes.js';
import { silenceOperations } from './features/silences/silences.routes.js';
import { channelsOperations } from './features/notifications/channels.routes.js';
import { organizationOperations } from './features/organizations/organization.routes.js';
import { orgSecretsOperations } from './features/org-secrets/org-secrets.routes.js';
import { servicesOperations } from './features/services/services.routes.js';
import { sslCertificatesOperations } from './features/ssl-certificates/ssl-certificates.routes.js';
import { statusPagesOperations } from './features/status-pages/status-pages.routes.js';
import { incidentsOperations } from './features/incidents/incidents.routes.js';
import { subscribersOperations } from './features/subscribers/subscribers.routes.js';
import { invitationsOperations } from './features/invitations/invitations.routes.js';
import { passwordResetOperations } from './features/password-reset/password-reset.routes.js';
import { ssoOperations } from './features/sso/sso.routes.js';
import { teamsOperations } from './features/teams/teams.routes.js';
import { badgesOperations } from './features/badges/badges.routes.js';
import { reportsOperations } from './features/reports/reports.routes.js';
import { auditLogOperations } from './features/audit/audit-log.routes.js';
import { openApiOperations } from './http/openapi/openapi-routes.js';
import type { ApiOperation } from './http/openapi/api-operation.js';

export const apiOperations: readonly ApiOperation[] = [
  ...healthOperations,
  ...openApiOperations,
  ...authOperations,
  ...profileOperations,
  ...sessionsOperations,
  ...mfaSignInOperations,
  ...secondFactorsOperations,
  ...organizationSecurityOperations,
  ...organizationOperations,
  ...apiKeysOperations,
  ...servicesOperations,
  ...historyOperations,
  ...agentsOperations,
  ...rulesOperations,
  ...alertsOperations,
  ...channelsOperations,
  ...escalationOperations,
  ...maintenanceOperations,
  ...silenceOperations,
  ...orgSecretsOperations,
  ...heartbeatsOperations,
  ...sslCertificatesOperations,
  ...statusPagesOperations,
  ...incidentsOperations,
  ...subscribersOperations,
  ...invitationsOperations,
  ...passwordResetOperations,
  ...ssoOperations,
  ...backupOperations,
  ...teamsOperations,
  ...badgesOperations,
  ...reportsOperations,
  ...auditLogOperations,
];
