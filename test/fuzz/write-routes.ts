// Every route that writes (app.ts and each feature's routes file), with the schema it parses
// its body with, and hints: values the schema cannot say (a known check type, an existing id)
// that let some cases get past validation into the services and the database.
import fc from 'fast-check';
import type { z } from 'zod';
import { CHECK_TYPES } from '../../shared/src/check-types.js';
import { CreateRuleInput, UpdateRuleInput } from '../../control-plane/src/features/alerting/rules.schema.js';
import { CreateApiKeyInput } from '../../control-plane/src/features/api-keys/api-keys.routes.js';
import { LoginInput, RegisterInput } from '../../control-plane/src/features/auth/auth.schema.js';
import { UpdateProfileInput } from '../../control-plane/src/features/auth/profile.routes.js';
import { CreateAgentInput } from '../../control-plane/src/features/agents/agents.schema.js';
import { CreatePolicyInput, UpdatePolicyInput } from '../../control-plane/src/features/escalation/escalation.schema.js';
import { CreateHeartbeatInput, UpdateHeartbeatInput } from '../../control-plane/src/features/heartbeats/heartbeats.schema.js';
import { CreateWindowInput, UpdateWindowInput } from '../../control-plane/src/features/maintenance/maintenance.schema.js';
import { CHANNEL_CONFIG, CHANNEL_TYPES, CreateChannelInput, UpdateChannelInput } from '../../control-plane/src/features/notifications/channels.schema.js';
import { AddMemberInput, ChangeRoleInput, OrganizationTokenInput, UpdateOrganizationInput } from '../../control-plane/src/features/organizations/organization.routes.js';
import { CreateServiceInput, UpdateServiceInput } from '../../control-plane/src/features/services/services.schema.js';
import { BulkServicesInput } from '../../control-plane/src/features/services/bulk-services.schema.js';
import { CreateSslCertificateInput, UpdateSslCertificateInput } from '../../control-plane/src/features/ssl-certificates/ssl-certificates.schema.js';
import { CreateStatusPageInput, UpdateStatusPageInput } from '../../control-plane/src/features/status-pages/status-pages.schema.js';
import { CreateTeamInput, UpdateTeamInput } from '../../control-plane/src/features/teams/teams.schema.js';
import type { Fixtures } from './fixtures.js';
import { hostileValue } from './hostile.js';
import { zodArbitrary } from './schema-arbitrary.js';

type Hints = Record<string, fc.Arbitrary<unknown>>;

export interface WriteRoute {
  method: 'POST' | 'PUT' | 'DELETE';
  /** As the router declares it, under /api/v1; its one parameter is filled by `target`. */
  path: string;
  /** The schema the route parses its body with; none: the route reads no body. */
  body?: z.ZodType;
  hints?: (f: Fixtures) => Hints;
  /**
   * The existing resource the path names. Without one, only unknown and hostile ids are sent:
   * a DELETE of a fixture would leave the other routes nothing to act on.
   */
  target?: (f: Fixtures) => string;
  public?: true;
  /** Cases per test run; fewer where each costs a password hash. */
  runs: number;
}

const email = (...known: string[]) => fc.oneof(fc.emailAddress(), fc.constantFrom(...known, ' Mixed.Case@Example.COM ', 'a@b', '@', 'x'.repeat(250) + '@e.com'));

/** Most check types take host:port, so most endpoints are one; the rest each match a few types, or none. */
const endpoint = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('127.0.0.1:9', '[::1]:5432', 'localhost:6379', 'db.internal:3306') },
  { weight: 2, arbitrary: fc.constantFrom('http://127.0.0.1:9/', 'https://127.0.0.1/x?y=1') },
  { weight: 1, arbitrary: fc.constantFrom('ws://127.0.0.1:9/', 'wss://[::1]:9/') },
  { weight: 1, arbitrary: fc.constantFrom('127.0.0.1', '::1', 'db.internal') },
  { weight: 1, arbitrary: fc.constantFrom('host:0', 'host:65536', 'http://', 'ftp://127.0.0.1/', 'http://[::1', '[::1]', ' 127.0.0.1:9 ') },
);
const OPTION_KEYS = ['method', 'headers', 'body', 'expected_status', 'keyword', 'keyword_inverted', 'follow_redirects', 'verify_tls', 'dns_record_type', 'resolver',
  'expected_answer', 'ehlo_name', 'username', 'password', 'private_key', 'database', 'min_failing_locations'];
const OPTION_VALUES = ['GET', 'POST', 'A', 'MX', '2xx', '127.0.0.1', '[::1]:53', [200, '3xx'], [], { 'X-A': 'b' }, { '': 'b' }, true, 1, 0, 'secret'];

const serviceHints = (f: Fixtures): Hints => ({
  check_type: fc.constantFrom(...CHECK_TYPES, 'http', 'Mariadb', 'TLS_CERTIFICATE', 'HTTP '),
  endpoint,
  organization_id: fc.constant(f.owner.orgId),
  // Options are checked per check type: most sets of keys fit none, so many services get none.
  options: fc.oneof(fc.constant({}), fc.dictionary(fc.constantFrom(...OPTION_KEYS), fc.oneof(fc.constantFrom(...OPTION_VALUES), hostileValue), { maxKeys: 4 })),
});
const ruleHints = (f: Fixtures): Hints => ({
  service_id: fc.constant(f.service),
  'condition.channel_ids[]': fc.constant(f.channel),
  'condition.team_ids[]': fc.constant(f.team),
  'condition.escalation_policy_id': fc.constant(f.policy),
});
const channelHints = (): Hints => ({
  config: fc.oneof(...CHANNEL_TYPES.map((type) => zodArbitrary(CHANNEL_CONFIG[type], { hostile: hostileValue }))),
});
// A step must notify someone, and both lists default to empty.
const policyHints = (f: Fixtures): Hints => ({
  'steps[].channel_ids': fc.constant([f.channel]),
  'steps[].channel_ids[]': fc.constant(f.channel),
  'steps[].team_ids[]': fc.constant(f.team),
});
const serviceIdsHints = (f: Fixtures): Hints => ({ 'service_ids[]': fc.constant(f.service) });
const certificateHints = (): Hints => ({
  hostname: fc.oneof(fc.domain(), fc.ipV4(), fc.ipV6(), fc.constantFrom('127.0.0.1', '[::1]', 'LOCALHOST', 'a..b', 'http://x', 'x:443', 'x/y')),
  ca_certificate: fc.constantFrom(null, 'hello', '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----'),
});
// Schedules and zones that pass validation, with DST-prone times and ones that never or rarely fire.
const heartbeatHints = (): Hints => ({
  schedule: fc.constantFrom('30 2 * * *', '@daily', '*/5 * * * * *', '0 0 29 2 1', '0 0 31 2 *', '61 * * * *', '@reboot'),
  timezone: fc.constantFrom('Europe/Berlin', 'america/new_york', 'UTC', 'Etc/GMT+14', 'Mars/Olympus', ''),
});
const teamHints = (f: Fixtures): Hints => ({ 'member_ids[]': fc.constantFrom(f.owner.userId, f.member.userId, f.outsider.userId) });

/**
 * The three routes of a resource with CRUD (crud-routes.ts): create and update with their
 * schemas, update on the fixture, delete on unknown and hostile ids only (see `target`).
 */
function crud(
  path: string,
  create: z.ZodType,
  update: z.ZodType,
  { hints, target, runs }: { hints?: WriteRoute['hints']; target: (f: Fixtures) => string; runs: number },
): WriteRoute[] {
  return [
    { method: 'POST', path, body: create, hints, runs },
    { method: 'PUT', path: `${path}/:id`, body: update, hints, target, runs },
    { method: 'DELETE', path: `${path}/:id`, runs: 25 },
  ];
}

export const WRITE_ROUTES: WriteRoute[] = [
  { method: 'POST', path: '/auth/register', body: RegisterInput, public: true, runs: 40, hints: (f) => ({ email: email(f.owner.email) }) },
  {
    method: 'POST',
    path: '/auth/login',
    body: LoginInput,
    public: true,
    runs: 60,
    hints: (f) => ({ email: email(f.owner.email, f.owner.email.toUpperCase()), password: fc.constant(f.owner.password) }),
  },
  ...crud('/services', CreateServiceInput, UpdateServiceInput, { hints: serviceHints, target: (f) => f.service, runs: 120 }),
  { method: 'POST', path: '/services/:id/check', target: (f) => f.service, runs: 25 },
  // Every action but delete, which would leave the routes after it no fixture service.
  {
    method: 'POST',
    path: '/services/bulk',
    body: BulkServicesInput,
    runs: 60,
    hints: (f) => ({ 'ids[]': fc.constant(f.service), action: fc.constantFrom('pause', 'resume', 'add_tags', 'remove_tags', 'set_locations', 'check', 'archive') }),
  },
  ...crud('/alert-rules', CreateRuleInput, UpdateRuleInput, { hints: ruleHints, target: (f) => f.rule, runs: 100 }),
  { method: 'POST', path: '/alerts/:id/acknowledge', runs: 25 },
  { method: 'POST', path: '/alerts/:id/resolve', runs: 25 },
  ...crud('/notification-channels', CreateChannelInput, UpdateChannelInput, { hints: channelHints, target: (f) => f.channel, runs: 100 }),
  { method: 'POST', path: '/notification-channels/:id/test', target: (f) => f.channel, runs: 25 },
  ...crud('/maintenance-windows', CreateWindowInput, UpdateWindowInput, { hints: serviceIdsHints, target: (f) => f.window, runs: 80 }),
  ...crud('/escalation-policies', CreatePolicyInput, UpdatePolicyInput, { hints: policyHints, target: (f) => f.policy, runs: 80 }),
  { method: 'POST', path: '/agents', body: CreateAgentInput, runs: 60 },
  { method: 'POST', path: '/agents/:id/token', target: (f) => f.agent, runs: 25 },
  { method: 'DELETE', path: '/agents/:id/previous-token', target: (f) => f.agent, runs: 25 },
  { method: 'DELETE', path: '/agents/:id', runs: 25 },
  { method: 'POST', path: '/api-keys', body: CreateApiKeyInput, runs: 60 },
  { method: 'DELETE', path: '/api-keys/:id', runs: 25 },
  {
    method: 'PUT',
    path: '/organization',
    body: UpdateOrganizationInput,
    runs: 60,
    // "free" would cap the fixture organization at 5 services and turn the creates into 403s.
    hints: () => ({ plan: fc.constantFrom('unlimited', 'enterprise', '__proto__', 'constructor', 'toString') }),
  },
  { method: 'POST', path: '/organizations/:id/token', body: OrganizationTokenInput, target: (f) => f.owner.orgId, runs: 40 },
  { method: 'POST', path: '/members', body: AddMemberInput, runs: 60, hints: (f) => ({ email: email(f.member.email, f.outsider.email) }) },
  { method: 'PUT', path: '/members/:userId', body: ChangeRoleInput, target: (f) => f.member.userId, runs: 60 },
  { method: 'DELETE', path: '/members/:userId', runs: 25 },
  // No current_password hint: a changed password would not matter, but this keeps the owner's login usable.
  { method: 'PUT', path: '/profile', body: UpdateProfileInput, runs: 60, hints: () => ({ email: email() }) },
  ...crud('/heartbeats', CreateHeartbeatInput, UpdateHeartbeatInput, { hints: heartbeatHints, target: (f) => f.heartbeat, runs: 60 }),
  { method: 'POST', path: '/heartbeat/:key', target: (f) => f.heartbeatKey, public: true, runs: 25 },
  { method: 'POST', path: '/heartbeat/:key/fail', target: (f) => f.heartbeatKey, public: true, runs: 15 },
  { method: 'POST', path: '/heartbeat/:key/start', target: (f) => f.heartbeatKey, public: true, runs: 15 },
  ...crud('/ssl-certificates', CreateSslCertificateInput, UpdateSslCertificateInput, { hints: certificateHints, target: (f) => f.certificate, runs: 80 }),
  { method: 'POST', path: '/ssl-certificates/:id/check', target: (f) => f.certificate, runs: 25 },
  ...crud('/status-pages', CreateStatusPageInput, UpdateStatusPageInput, { hints: serviceIdsHints, target: (f) => f.statusPage, runs: 80 }),
  ...crud('/teams', CreateTeamInput, UpdateTeamInput, { hints: teamHints, target: (f) => f.team, runs: 60 }),
];
